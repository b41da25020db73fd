// The frame of each page: its heading and the document's title. After a navigation inside the app the
// heading takes the focus, so a screen reader announces the new page and Tab starts from its top.
import { useEffect, useRef, type ReactNode } from 'react';

let firstPage = true;

export function Page({ title, heading, children, actions }: { title: string; heading?: ReactNode; children: ReactNode; actions?: ReactNode }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Media Tracker`;
  }, [title]);
  useEffect(() => {
    if (firstPage) firstPage = false;
    else h1.current?.focus({ preventScroll: false });
  }, []);
  return (
    <>
      <div className="page-head">
        <h1 ref={h1} tabIndex={-1}>
          {heading ?? title}
        </h1>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}
