// The calendar feed part of Settings: an address calendar apps subscribe to, holding the episodes of the
// shows the user follows. The service shows the address once, when it is made, and keeps only a digest
// of its token: after a reload this part says when it was made and last fetched, and offers a new
// address (the old one stops working) or deleting the feed. Both ask first, in place.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { api, queryClient, type PlatformOutputs } from '../../api.ts';
import { errorCode, errorText } from '../../errors.ts';
import { ErrorNote, Loading } from '../../ui/states.tsx';
import './calendar-feed.css';

type Feed = PlatformOutputs['calendarFeed']['get'];

const feedKey = ['settings', 'calendar-feed'] as const;
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The user's feed, or null when there is none (the service's 404). */
async function readFeed(): Promise<Feed | null> {
  try {
    return await api.platform.calendarFeed.get.query();
  } catch (err) {
    if (errorCode(err) === 'not_found') return null;
    throw err;
  }
}

export function CalendarFeedSection() {
  const q = useQuery({ queryKey: feedKey, queryFn: readFeed });
  // The address, known only in the page that made it.
  const [url, setUrl] = useState<string>();
  const [asking, setAsking] = useState<'rotate' | 'delete'>();
  const [status, setStatus] = useState<string>();
  const [refusal, setRefusal] = useState<string>();

  const make = useMutation({
    mutationFn: () => api.platform.calendarFeed.create.mutate(),
    onSuccess: (made) => {
      queryClient.setQueryData(feedKey, { createdAt: made.createdAt, lastFetchedAt: null } satisfies Feed);
      setUrl(made.url);
      setAsking(undefined);
      setStatus('Your calendar feed address is ready. Copy it now: it is shown only this once.');
    },
    onError: (err) => setRefusal(errorText(err)),
  });
  const remove = useMutation({
    mutationFn: () => api.platform.calendarFeed.remove.mutate(),
    onSuccess: () => {
      queryClient.setQueryData(feedKey, null);
      setUrl(undefined);
      setAsking(undefined);
      setStatus('Calendar feed deleted: its address no longer works.');
    },
    onError: (err) => setRefusal(errorText(err)),
  });
  const busy = make.isPending || remove.isPending;
  const start = (action: () => void) => {
    setRefusal(undefined);
    setStatus(undefined);
    action();
  };

  return (
    <section aria-labelledby="calendar-feed-heading" className="card settings-card">
      <h2 id="calendar-feed-heading">Calendar feed</h2>
      <p>
        See the episodes of the shows you follow in your calendar app: an all-day event on each air date, from a week ago to three months ahead, kept up to date by
        the app.
      </p>
      {q.isPending ? (
        <Loading label="Loading your calendar feed" rows={2} />
      ) : q.isError ? (
        <ErrorNote error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <>
          {refusal && (
            <p className="error" role="alert">
              {refusal}
            </p>
          )}
          <p className="form-status" role="status">
            {status}
          </p>
          {url && <FeedAddress url={url} />}
          {q.data && !url && <FeedDates feed={q.data} />}
          {!q.data ? (
            <div className="actions">
              <button type="button" className="primary" disabled={busy} onClick={() => start(() => make.mutate())}>
                Create a calendar feed
              </button>
            </div>
          ) : asking ? (
            <div className="confirm" role="group" aria-labelledby="calendar-feed-confirm">
              <p id="calendar-feed-confirm">
                {asking === 'rotate'
                  ? 'Make a new address? The current one stops working at once: calendars subscribed to it need the new one.'
                  : 'Delete the calendar feed? Its address stops working at once, and calendars subscribed to it stop updating.'}
              </p>
              <div className="actions">
                <button type="button" className={asking === 'rotate' ? 'primary' : 'danger'} disabled={busy} onClick={() => start(() => (asking === 'rotate' ? make.mutate() : remove.mutate()))}>
                  {asking === 'rotate' ? 'Make a new address' : 'Delete the feed'}
                </button>
                <button type="button" className="secondary" disabled={busy} onClick={() => setAsking(undefined)}>
                  Cancel
                </button>
              </div>
            </div>
          ) : (
            <div className="actions">
              <button type="button" className="secondary" onClick={() => start(() => setAsking('rotate'))}>
                New address…
              </button>
              <button type="button" className="danger" onClick={() => start(() => setAsking('delete'))}>
                Delete feed…
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

function FeedDates({ feed }: { feed: Feed }) {
  return (
    <p>
      Your calendar feed was made on <time dateTime={feed.createdAt}>{dateTime.format(new Date(feed.createdAt))}</time>;{' '}
      {feed.lastFetchedAt ? (
        <>
          a calendar app last fetched it on <time dateTime={feed.lastFetchedAt}>{dateTime.format(new Date(feed.lastFetchedAt))}</time>.
        </>
      ) : (
        'no calendar app has fetched it yet.'
      )}{' '}
      Its address was shown once, when it was made. To subscribe another calendar, make a new address.
    </p>
  );
}

/** The address once made: to copy, or to open as webcal://, with where to paste it in common apps. */
function FeedAddress({ url }: { url: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();
  const webcal = url.replace(/^https?:/, 'webcal:');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('Address copied.');
    } catch {
      input.current?.select();
      setCopied('Copying is not allowed here: the address is selected, copy it yourself.');
    }
  };

  return (
    <div className="calendar-feed-address">
      <div className="field">
        <label htmlFor={`${id}-url`}>Feed address</label>
        <div className="copy-row">
          <input ref={input} id={`${id}-url`} type="text" readOnly value={url} aria-describedby={`${id}-hint`} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" className="primary" onClick={() => void copy()}>
            Copy
          </button>
        </div>
        <span id={`${id}-hint`} className="field-hint">
          Anyone with this address can see the episodes of the shows you follow. Keep it to yourself; if it gets out, make a new address.
        </span>
        <p className="form-status" role="status">
          {copied}
        </p>
      </div>
      <a className="button secondary" href={webcal}>
        Open in my calendar app
      </a>
      <ul className="calendar-feed-hints">
        <li>
          <strong>Google Calendar</strong> (on a computer): Other calendars, +, From URL; paste the address.
        </li>
        <li>
          <strong>Apple Calendar</strong>: File, New Calendar Subscription (on iPhone: Settings, Calendar, Accounts, Add Subscribed Calendar); paste the address, or
          open it above.
        </li>
        <li>
          <strong>Outlook</strong>: Add calendar, Subscribe from web; paste the address.
        </li>
      </ul>
    </div>
  );
}
