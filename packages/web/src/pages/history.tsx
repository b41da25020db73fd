// History: every watch of the signed-in person, newest first, a heading per day. The list goes on by
// itself when its end comes into view, and a "Load more" button does the same from the keyboard. Filters:
// the type, and a range of days ("From", "To", both included, in the person's time zone).
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../api.ts';
import { Page } from '../ui/page.tsx';
import { SignedIn } from '../ui/signed-in.tsx';
import { Empty, ErrorNote, Loading } from '../ui/states.tsx';
import { useHistoryChanges } from './history-changes.ts';
import { byDay, dayHeading, timeWindow, type HistoryEntry } from './history-days.ts';
import { HistoryEntryRow } from './history-entry.tsx';

const PAGE_SIZE = 25;
const TYPES = [
  ['', 'All'],
  ['movie', 'Movies'],
  ['show', 'Shows'],
  ['anime', 'Anime'],
] as const;
type Type = (typeof TYPES)[number][0];

export default function HistoryPage() {
  return (
    <Page title="History">
      <SignedIn what="your watch history">
        <History />
      </SignedIn>
    </Page>
  );
}

function History() {
  const [type, setType] = useState<Type>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const backwards = Boolean(from && to && from > to);
  const filtered = Boolean(type || from || to);
  const key = ['history', 'list', type, from, to] as const;
  const q = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) =>
      api.platform.history.list.query({ limit: PAGE_SIZE, ...(type ? { type } : {}), ...timeWindow(from, to), ...(pageParam ? { cursor: pageParam } : {}) }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    enabled: !backwards,
  });
  const { edit, remove } = useHistoryChanges(key);
  const entries = q.data?.pages.flatMap((p) => p.items) ?? [];
  const days = byDay(entries);
  // A failed next page keeps the pages already shown (the query's status is then an error too).
  const moreError = q.isFetchNextPageError ? q.error : null;

  // Focus that a change would lose (its entry moved to another day, or went away) goes to the entry, the
  // next one, or the list, once the change shows.
  const [refocus, setRefocus] = useState<{ target: string; shown: (list: HistoryEntry[]) => boolean } | null>(null);
  useEffect(() => {
    if (!refocus || !refocus.shown(entries)) return;
    setRefocus(null);
    if (document.activeElement && document.activeElement !== document.body) return;
    (document.getElementById(refocus.target) ?? document.getElementById('history-days'))?.focus();
  }, [refocus, entries]);

  return (
    <>
      <form className="history-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="history-type">Type</label>
          <select id="history-type" value={type} onChange={(e) => setType(e.target.value as Type)}>
            {TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="history-from">From</label>
          <input id="history-from" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="history-to">To</label>
          <input id="history-to" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
        </div>
        {filtered && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setType('');
              setFrom('');
              setTo('');
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      {backwards ? (
        <p className="error" role="alert">
          “From” is after “To”. Pick a “From” day on or before the “To” day.
        </p>
      ) : q.isPending ? (
        <Loading label="Loading your history" rows={5} />
      ) : !q.data ? (
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      ) : days.length === 0 ? (
        filtered ? (
          <Empty>No watches match these filters. Choose another type or other days, or clear the filters.</Empty>
        ) : (
          <Empty>
            You have not logged a watch yet. Search for a title (the search field at the top, or press /), open it and mark it as watched: it shows here.
          </Empty>
        )
      ) : (
        <div id="history-days" tabIndex={-1} className="history-days">
          {days.map(({ day, entries: dayEntries }) => (
            <section key={day} aria-labelledby={`day-${day}`}>
              <h2 id={`day-${day}`}>
                <time dateTime={day}>{dayHeading(day)}</time>
              </h2>
              <ul className="history-list">
                {dayEntries.map((entry) => (
                  <HistoryEntryRow
                    key={entry.id}
                    entry={entry}
                    onEdit={(watchedAt) => {
                      edit.mutate({ id: entry.id, watchedAt });
                      setRefocus({ target: `entry-${entry.id}`, shown: (list) => list.some((e) => e.id === entry.id && e.watchedAt === watchedAt) });
                    }}
                    onDelete={() => {
                      const next = entries[entries.findIndex((e) => e.id === entry.id) + 1];
                      remove.mutate({ id: entry.id });
                      setRefocus({ target: next ? `entry-${next.id}` : 'history-days', shown: (list) => !list.some((e) => e.id === entry.id) });
                    }}
                  />
                ))}
              </ul>
            </section>
          ))}
          <MoreEntries
            hasMore={q.hasNextPage}
            loading={q.isFetchingNextPage}
            error={moreError}
            onMore={() => void q.fetchNextPage()}
          />
        </div>
      )}
    </>
  );
}

/** The end of the list: loads the next page when it comes into view, or on "Load more". */
function MoreEntries({ hasMore, loading, error, onMore }: { hasMore: boolean; loading: boolean; error: unknown; onMore: () => void }) {
  const end = useRef<HTMLDivElement>(null);
  const more = useRef(onMore);
  useEffect(() => {
    more.current = onMore;
  });
  useEffect(() => {
    const el = end.current;
    if (!el || !hasMore || loading || error) return;
    const observer = new IntersectionObserver((seen) => {
      if (seen.some((s) => s.isIntersecting)) more.current();
    }, { rootMargin: '400px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasMore, loading, error]);
  return (
    <div ref={end} className="history-end">
      {error ? (
        <ErrorNote error={error} onRetry={onMore} />
      ) : hasMore ? (
        <>
          {/* Stays in place while the next page loads, so the keyboard's focus stays on it. */}
          <button type="button" className="secondary" aria-disabled={loading} onClick={() => !loading && onMore()}>
            Load more
          </button>
          <span className="visually-hidden" role="status">
            {loading ? 'Loading more watches…' : ''}
          </span>
        </>
      ) : (
        <p className="muted">That is all of your history.</p>
      )}
    </div>
  );
}
