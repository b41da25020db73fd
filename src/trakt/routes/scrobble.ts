// Trakt's scrobble and check-in endpoints, over the playback procedure (platform.playback.event): every
// report is a playback event of the user, so Continue Watching, the history, the change feed and the live
// events follow it as they follow the platform's own players. scrobble-events.ts says how the event's
// ids are derived; scrobble-reads.ts holds the few reads no procedure answers (hence `scope` here).
//
// Trakt's rules on top of the procedure's:
// - /scrobble/stop at 80 % or more records the watch (action `scrobble`); below it is a pause (the
//   progress stays in Continue Watching); below 1 % a 422. The procedure decides with
//   watched_threshold 0.8 (Trakt's threshold, not the user's preference) and completesWatch says the same.
// - a stop that would record a watch of an item the user watched less than its runtime ago is a 409
//   with `{watched_at, expires_at}` (a retried request gets its first answer instead).
// - /scrobble/pause without a session to pause (no start first, or the viewing was stopped) saves the
//   progress all the same, as an incomplete stop: Trakt takes a pause at any time.
//
// Check-in (decision): the service has no timer to turn a check-in into a watch when the runtime is
// over, so a check-in records the watch at once, dated at its end (now + the runtime, 60 minutes when
// unknown): the playback procedure's completed stop, with event_created_at in the future (it takes up
// to 24 hours ahead). Until that time the watch is the check-in in progress: another check-in is a 409
// with its `expires_at`, and DELETE /checkin removes it (platform.history.remove), so a cancelled
// check-in leaves no watch. Once the time has passed it is an ordinary history entry.
import { z } from 'zod';
import { ApiError } from '../../core/errors.ts';
import { findReceipt } from '../../core/playback/sessions.ts';
import { completesWatch } from '../../core/playback/progress.ts';
import type { PlaybackEventInput } from '../../core/playback/schemas.ts';
import type { TraktCall, TraktRoute } from '../route.ts';
import { eventIdOf, sessionIdOf } from '../scrobble-events.ts';
import { eventMedia, findItem, itemBody, itemKey, parseBody, presentItem, runtimeOf, unprocessable } from '../scrobble-items.ts';
import { latestWatchOf, watchInProgress } from '../../core/library/latest-watch-repository.ts';
import { continueWatchingIdOf } from '../../core/playback/continue-watching-entry.ts';

/** Trakt's scrobble threshold: a stop at this progress or more records the watch. */
const TRAKT_WATCHED_THRESHOLD = 0.8;
/** The runtime assumed when the catalog has none (check-in length, duplicate-scrobble window). */
const DEFAULT_RUNTIME_MINUTES = 60;
/** The playback procedure takes events at most 24 hours ahead: a check-in ends before that. */
const MAX_CHECKIN_MINUTES = 23 * 60;

const scrobbleBody = itemBody.extend({
  progress: z.number().min(0).max(100),
  app_version: z.string().max(200).nullish(),
  app_date: z.string().max(50).nullish(),
});

const sharing = z.object({ twitter: z.boolean().nullish(), mastodon: z.boolean().nullish(), tumblr: z.boolean().nullish() }).loose();
const checkinBody = itemBody.extend({
  sharing: sharing.nullish(),
  message: z.string().max(1000).nullish(),
  app_version: z.string().max(200).nullish(),
  app_date: z.string().max(50).nullish(),
});

/** Nothing is posted to social networks from here. */
const NO_SHARING = { twitter: false, mastodon: false, tumblr: false };

const minutes = (n: number) => n * 60_000;

type TraktAction = 'start' | 'pause' | 'stop';

async function scrobble(call: TraktCall, action: TraktAction) {
  const body = parseBody(scrobbleBody, call.body);
  if (action === 'stop' && body.progress < 1) throw unprocessable('progress must be at least 1 to stop');
  const item = await findItem(call.em, body);
  const actor = call.actor!;
  const now = Date.now();
  const latest = await latestWatchOf(call.em, actor.userId, item.title.id, item.episode?.id ?? null);
  const event: PlaybackEventInput = {
    action,
    event_id: eventIdOf(actor.clientId, action, itemKey(item), body.progress, body.app_version, now),
    event_created_at: now,
    playback_session_id: sessionIdOf(actor.clientId, itemKey(item), latest?.id ?? null),
    progress: body.progress / 100,
    ...eventMedia(item),
    ...(body.app_version ? { client_version: body.app_version } : {}),
    ...(action === 'stop' ? { watched_threshold: TRAKT_WATCHED_THRESHOLD } : {}),
  };
  const completes = completesWatch(event.action, event, event.progress ?? null);
  if (completes && latest && !(await findReceipt(call.em, actor.userId, event.event_id))) {
    const expires = latest.watchedAt.getTime() + minutes(runtimeOf(item) ?? latest.runtimeMinutes ?? DEFAULT_RUNTIME_MINUTES);
    if (expires > now) return { status: 409, body: { watched_at: latest.watchedAt.toISOString(), expires_at: new Date(expires).toISOString() } };
  }
  await record(call, event);
  const id = completes ? Number((await latestWatchOf(call.em, actor.userId, item.title.id, item.episode?.id ?? null))?.id ?? 0) : ((await continueWatchingIdOf(call.em, actor.userId, item.title.id)) ?? 0);
  return {
    status: 201,
    body: { id, action: completes ? 'scrobble' : action === 'stop' ? 'pause' : action, progress: body.progress, sharing: NO_SHARING, ...presentItem(item) },
  };
}

/** Sends the event; a pause the session cannot take (none started, or stopped) saves its progress as an incomplete stop. */
async function record(call: TraktCall, event: PlaybackEventInput): Promise<void> {
  try {
    await call.procedures.platform.playback.event(event);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'playback_state_conflict' && event.action === 'pause')) throw err;
    await call.procedures.platform.playback.event({ ...event, action: 'stop', watched: false });
  }
}

async function checkin(call: TraktCall) {
  const body = parseBody(checkinBody, call.body);
  const item = await findItem(call.em, body);
  const actor = call.actor!;
  const [running] = await watchInProgress(call.em, actor.userId);
  if (running) return { status: 409, body: { expires_at: running.watchedAt.toISOString() } };
  const now = Date.now();
  const runtime = Math.min(runtimeOf(item) ?? DEFAULT_RUNTIME_MINUTES, MAX_CHECKIN_MINUTES);
  const endsAt = now + minutes(runtime);
  const key = `checkin:${itemKey(item)}`;
  const latest = await latestWatchOf(call.em, actor.userId, item.title.id, item.episode?.id ?? null);
  await call.procedures.platform.playback.event({
    action: 'stop',
    watched: true,
    progress: 1,
    duration_seconds: runtime * 60,
    event_id: eventIdOf(actor.clientId, 'checkin', key, 100, body.app_version, now),
    event_created_at: endsAt,
    playback_session_id: sessionIdOf(actor.clientId, key, latest?.id ?? null),
    ...eventMedia(item),
    ...(body.app_version ? { client_version: body.app_version } : {}),
  });
  const watch = await latestWatchOf(call.em, actor.userId, item.title.id, item.episode?.id ?? null);
  return { status: 201, body: { id: Number(watch?.id ?? 0), watched_at: new Date(endsAt).toISOString(), sharing: NO_SHARING, ...presentItem(item) } };
}

async function cancelCheckin(call: TraktCall) {
  for (const w of await watchInProgress(call.em, call.actor!.userId)) await call.procedures.platform.history.remove({ id: Number(w.id) });
  return {};
}

const scrobbleRoute = (action: TraktAction, summary: string): TraktRoute => ({
  method: 'POST',
  path: `/scrobble/${action}`,
  summary,
  tag: 'Scrobble',
  auth: 'required',
  // The procedure checks it too; here because the route reads the user's history first.
  scope: 'playback:write',
  statuses: [201, 409, 422],
  handle: (call) => scrobble(call, action),
});


export const scrobbleRoutes: TraktRoute[] = [
  scrobbleRoute('start', 'Start watching in a media center'),
  scrobbleRoute('pause', 'Pause watching in a media center'),
  scrobbleRoute('stop', 'Stop or finish watching in a media center (80 % or more records the watch)'),
  {
    method: 'POST',
    path: '/checkin',
    summary: 'Check into an item (recorded as a watch dated at the end of its runtime)',
    tag: 'Checkin',
    auth: 'required',
    scope: 'playback:write',
    statuses: [201, 409, 422],
    handle: checkin,
  },
  {
    method: 'DELETE',
    path: '/checkin',
    summary: 'Delete any active check-in',
    tag: 'Checkin',
    auth: 'required',
    scope: 'history:write',
    statuses: [204],
    handle: cancelCheckin,
  },
];
