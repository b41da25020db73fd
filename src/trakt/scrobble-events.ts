// The playback event a Trakt scrobble becomes. Trakt's clients send no event id, no client time and no
// session: the facade derives them so that the playback procedure's rules hold.
// - event_id: a digest of the app, the action, the item, the progress and the minute the request came
//   in: a client retrying the same request gets the first answer back (the procedure's receipts), while
//   the same report a few minutes later is a new event.
// - playback_session_id: a digest of the app, the item and the user's latest watch of the item: every
//   report of one viewing shares a session (start, pause, stop), and after a watch is recorded the next
//   viewing (a rewatch) opens a new one, which may record its own watch.
// - event_created_at: the server's time of the request (Trakt's `app_date` is the app's build date).
import { createHash } from 'node:crypto';

/** Requests this close (in the same minute) with the same body are one event retried. */
const RETRY_WINDOW_MS = 60_000;

const digest = (parts: readonly (string | number | null | undefined)[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 43);

export function eventIdOf(clientId: string, action: string, itemKey: string, progress: number, appVersion: string | null | undefined, now: number): string {
  return `trakt-${digest([clientId, action, itemKey, progress, appVersion ?? null, Math.floor(now / RETRY_WINDOW_MS)])}`;
}

export function sessionIdOf(clientId: string, itemKey: string, latestWatchId: string | null): string {
  return `trakt-${digest([clientId, itemKey, latestWatchId])}`;
}
