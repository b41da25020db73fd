// A media server's event, applied for its receiver's user: through the playback module's one state
// machine (recordPlaybackEvent), so history, Continue Watching, the change feed and live events follow
// as they do for any app. Writes are attributed to the client id `media-server:{kind}` (no app's id looks
// like it), which history entries and Continue Watching keep as where the play came from. A title the
// catalog lacks is recorded as deferred for the user to see; a state the session cannot take (a pause
// after the stop) is ignored: the server is never told to retry what a retry cannot change.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { ApiError } from '../errors.ts';
import { playbackEventInput, type IgnoredReason as PlaybackIgnored, type PlaybackEventInput } from '../playback/schemas.ts';
import { recordPlaybackEvent, type PlaybackEvent } from '../playback/service.ts';
import { transaction } from '../db/transaction.ts';
import type { MediaServerKind } from '../schema/media-servers.ts';
import { decidePlay, type PlayDecision } from './plays.ts';
import { countEvent, insertDeferred, type receiverBySecretHash } from './repository.ts';
import { DEFERRED_SHOWN } from './schemas.ts';
import { unreadable, type IgnoredReason, type ReadPayload, type ServerEvent } from './server-event.ts';

export type Receiver = NonNullable<Awaited<ReturnType<typeof receiverBySecretHash>>>;

export type HookOutcome =
  | { outcome: 'recorded'; reason: null }
  | { outcome: 'duplicate'; reason: null }
  | { outcome: 'deferred'; reason: 'media_not_found' }
  | { outcome: 'ignored'; reason: IgnoredReason | PlaybackIgnored | 'playback_state_conflict' };

/** Who a receiver's events act as. */
const mediaServerClientId = (kind: MediaServerKind) => `media-server:${kind}`;

/**
 * A server's time of an event is believed from a day before ours to a few minutes after; outside that
 * its clock is wrong and the event is dated when it came.
 */
const PAST_MS = 24 * 60 * 60 * 1000;
const AHEAD_MS = 5 * 60 * 1000;

function accountMatches(filter: string, account: ServerEvent['account']): boolean {
  return account.id === filter || (account.name !== null && account.name.toLowerCase() === filter.toLowerCase());
}

const clip = (s: string | undefined, max: number) => (s ? [...s].slice(0, max).join('') : undefined);

/** The event as the playback module takes it; a payload it cannot take names its field (a 400 to the server). */
function playbackEvent(e: ServerEvent, d: PlayDecision): PlaybackEvent {
  const now = Date.now();
  const at = e.occurredAt !== null && e.occurredAt >= now - PAST_MS && e.occurredAt <= now + AHEAD_MS ? e.occurredAt : now;
  const m = e.media;
  const duration = e.durationSeconds !== null && e.durationSeconds >= 1 ? e.durationSeconds : undefined;
  const position = e.positionSeconds === null ? undefined : duration === undefined ? e.positionSeconds : Math.min(e.positionSeconds, duration);
  // A pause or a resume of a play the receiver has not seen (made mid-play) has no session to act on:
  // it opens one, as a progress report does.
  const action = !d.known && (e.action === 'pause' || e.action === 'resume') ? 'progress' : e.action;
  const input: PlaybackEventInput = {
    action,
    event_id: d.eventId,
    event_created_at: at,
    media_type: m.type,
    title: clip(m.title, 500)!,
    playback_session_id: d.sessionId,
    ...(m.type === 'episode' ? { season: m.season, episode: m.episode } : {}),
    ...(m.type === 'episode' && m.episodeEnd !== undefined && m.episode !== undefined && m.episodeEnd > m.episode ? { episode_end: m.episodeEnd } : {}),
    ...(m.episodeTitle ? { episode_title: clip(m.episodeTitle, 500) } : {}),
    ...(m.year !== undefined ? { year: m.year } : {}),
    ...(m.movieDbId !== undefined ? { movie_db_id: m.movieDbId } : {}),
    ...(m.tvDbId !== undefined ? { tv_db_id: m.tvDbId } : {}),
    ...(m.filmDbId !== undefined ? { film_db_id: m.filmDbId } : {}),
    ...(action === 'stop' && d.watched ? { watched: true } : {}),
    ...(duration !== undefined ? { duration_seconds: duration } : {}),
    ...(position !== undefined ? { position_seconds: position } : {}),
    ...(e.play.player ? { device_id: clip(e.play.player, 200) } : {}),
    ...(e.account.id ? { media_server_user_id: clip(e.account.id, 200) } : {}),
  };
  const checked = playbackEventInput.safeParse(input);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return unreadable(`The event cannot be recorded: ${issue.path.join('.') || 'event'} ${issue.message}`);
  }
  return checked.data as PlaybackEvent;
}

async function deferred(em: EntityManager, receiver: Receiver, e: ServerEvent): Promise<HookOutcome> {
  const m = e.media;
  await transaction(em, (tx) =>
    insertDeferred(
      tx,
      {
        receiverId: receiver.id, kind: e.kind, event: e.event, mediaType: m.type, title: clip(m.title, 500)!, year: m.year ?? null,
        season: m.season ?? null, episode: m.episode ?? null,
        ids: { ...(m.movieDbId !== undefined ? { movieDbId: m.movieDbId } : {}), ...(m.filmDbId ? { filmDbId: m.filmDbId } : {}), ...(m.tvDbId !== undefined ? { tvDbId: m.tvDbId } : {}) },
      },
      DEFERRED_SHOWN,
    ));
  return { outcome: 'deferred', reason: 'media_not_found' };
}

/** Applies what a server posted to one of `receiver`'s URLs; counts it whatever it says. */
export async function receiveServerEvent(em: EntityManager, receiver: Receiver, kind: MediaServerKind, read: ReadPayload): Promise<HookOutcome> {
  await countEvent(em, receiver.id, kind);
  if (read.kind === 'ignored') return { outcome: 'ignored', reason: read.reason };
  const e = read.event;
  if (receiver.account_filter !== null && !accountMatches(receiver.account_filter, e.account)) return { outcome: 'ignored', reason: 'other_account' };
  const decision = await decidePlay(em, receiver.id, e);
  const input = playbackEvent(e, decision);
  const actor: Actor = { userId: receiver.user_id, clientId: mediaServerClientId(kind), scopes: new Set(['playback:write']), official: false };
  try {
    const answer = await recordPlaybackEvent(em, actor, input);
    if (answer.deduped) return { outcome: 'duplicate', reason: null };
    return answer.ignored ? { outcome: 'ignored', reason: answer.ignored } : { outcome: 'recorded', reason: null };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'media_not_found') return deferred(em, receiver, e);
    if (err instanceof ApiError && err.code === 'playback_state_conflict') return { outcome: 'ignored', reason: 'playback_state_conflict' };
    throw err;
  }
}
