// A person's avatar: their picture, or (with none, or one that cannot load) their initials on a plain
// disc, so a profile never shows a broken image. The picture is decoration: the name is always beside it.
import { useState } from 'react';
import './avatar.css';

const initials = (name: string) =>
  name
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => [...w][0] ?? '')
    .join('')
    .toUpperCase() || '?';

export function Avatar({ url, name, size = 'md' }: { url: string | null | undefined; name: string; size?: 'sm' | 'md' | 'lg' }) {
  // Remembers which URL failed, so a new URL (after a save) gets its own try.
  const [failed, setFailed] = useState<string | null>(null);
  if (!url || failed === url) {
    return (
      <span className={`avatar avatar-${size} avatar-placeholder`} aria-hidden="true">
        {initials(name)}
      </span>
    );
  }
  return <img className={`avatar avatar-${size}`} src={url} alt="" referrerPolicy="no-referrer" decoding="async" onError={() => setFailed(url)} />;
}
