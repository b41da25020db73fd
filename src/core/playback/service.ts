// Applying one playback event (POST /playback/{action}) and dismissing Continue Watching entries. Each
// runs in one transaction under the user's playback lock: the event receipt (dedup by event_id), the
// session, history, Continue Watching, their change records and the stream events commit together.
// Stream events are published on the bus after commit.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { transaction } from '../db/transaction.ts';
import type { StreamEvent } from '../events/bus.ts';
import { appendStreamEvents, publishStreamEvents, type NewStreamEvent } from '../events/stream-log.ts';
import { logWatches } from '../library/history-write.ts';
import { watchedThresholdOf } from '../profile/preferences.ts';
import { dismissEntry, removeWatched, tooOldForContinueWatching, upsertProgress } from './continue-watching.ts';
import type { ResolvedTitle } from '../catalog/resolve.ts';
import { punchplayId, resolveEventTitle, resolveMedia, type ResolvedMedia } from './media.ts';
import { completesWatch, measure, needsUserThreshold, type Measured } from './progress.ts';
import type { PlaybackResponse } from '../schema/playback.ts';
import type { IgnoredReason, PlaybackAction, PlaybackEventInput } from './schemas.ts';
import { findReceipt, findSession, lockUserPlayback, markScrobbled, saveReceipt, saveSession, type Session } from './sessions.ts';
import { transition, type SessionState } from './state.ts';

export type PlaybackEvent = PlaybackEventInput & { action: PlaybackAction };

function answer(input: PlaybackEvent, media: ResolvedMedia, ignored: IgnoredReason | null): PlaybackResponse {
  const first = media.episodes[0];
  const last = media.episodes.at(-1);
  return {
    ok: true,
    media_type: input.media_type,
    movie_db_id: media.title.movieDbId,
    tv_db_id: media.title.tvDbId,
    film_db_id: media.title.filmDbId,
    punchplay_id: punchplayId(media.title.type, media.title.movieDbId),
    deduped: false,
    ignored,
    season: first?.season ?? null,
    episode: first?.episode ?? null,
    episode_end: input.episode_end !== undefined && last ? last.episode : null,
    absolute_episode: media.absolute,
    anime: media.title.isAnime,
  };
}

/** The `playback.*` stream event: the session as it now is (snake_case, like the playback API). */
function sessionEvent(input: PlaybackEvent, media: ResolvedMedia, state: SessionState, m: Measured, response: PlaybackResponse): NewStreamEvent {
  return {
    name: `playback.${input.action}`,
    data: {
      playback_session_id: input.playback_session_id,
      state,
      watched: state === 'watched',
      media_type: input.media_type,
      movie_db_id: response.movie_db_id,
      punchplay_id: response.punchplay_id,
      title: media.title.name,
      season: response.season,
      episode: response.episode,
      episode_end: response.episode_end,
      progress: m.progress,
      position_seconds: m.positionSeconds,
      duration_seconds: m.durationSeconds,
      event_created_at: input.event_created_at,
      device_id: input.device_id ?? null,
    },
  };
}

async function logSessionWatch(tx: EntityManager, actor: Actor, input: PlaybackEvent, media: ResolvedMedia, m: Measured): Promise<boolean> {
  const watchedAt = new Date(input.event_created_at);
  const perEpisode = m.durationSeconds !== null ? Math.round(m.durationSeconds / 60 / Math.max(1, media.episodes.length)) : null;
  const watches = media.episodes.length
    ? media.episodes.map((e) => ({ titleId: media.title.id, episodeId: e.id, season: e.season, episode: e.episode, runtimeMinutes: e.runtimeMinutes ?? media.title.runtimeMinutes ?? perEpisode }))
    : [{ titleId: media.title.id, episodeId: null, season: null, episode: null, runtimeMinutes: media.title.runtimeMinutes ?? perEpisode }];
  const results = await logWatches(
    tx,
    actor.userId,
    watches.map((w) => ({ ...w, watchedAt, source: 'playback' as const, clientId: actor.clientId })),
  );
  await markScrobbled(tx, actor.userId, input.playback_session_id);
  return results.some((r) => r.status === 'inserted');
}

type Applied = { response: PlaybackResponse; events: StreamEvent[] };
type Outcome = { ignored: IgnoredReason | null; state?: SessionState; events: NewStreamEvent[] };

/** Moves the title's Continue Watching entry to the event's progress (progress > 0, not a completed watch). */
async function moveProgress(tx: EntityManager, actor: Actor, input: PlaybackEvent, media: ResolvedMedia, m: Measured & { progress: number }) {
  if (tooOldForContinueWatching(input.event_created_at)) return { kind: 'rejected', reason: 'stale_event' } as const;
  const first = media.episodes[0];
  return upsertProgress(tx, actor.userId, {
    titleId: media.title.id,
    episodeId: first?.id ?? null,
    season: first?.season ?? null,
    episode: first?.episode ?? null,
    progress: m.progress,
    positionSeconds: m.positionSeconds,
    durationSeconds: m.durationSeconds,
    sessionKey: input.playback_session_id,
    eventAt: input.event_created_at,
    clientId: actor.clientId,
  });
}

/** An event at least as new as its session's latest: the transition of state.ts and its effects. */
async function applyInOrder(tx: EntityManager, actor: Actor, input: PlaybackEvent, media: ResolvedMedia, m: Measured, session: Session | null, state: SessionState, completes: boolean): Promise<Outcome> {
  const episodeIds = media.episodes.map((e) => e.id);
  const next: Session = {
    state,
    progress: m.progress ?? session?.progress ?? null,
    lastEventAt: input.event_created_at,
    scrobbled: session?.scrobbled ?? false,
    titleId: media.title.id,
    episodeId: episodeIds[0] ?? null,
  };
  const sessionChanged = !session || session.state !== next.state || session.progress !== next.progress || session.titleId !== next.titleId || session.episodeId !== next.episodeId;
  await saveSession(tx, actor.userId, input.playback_session_id, next);
  const events: NewStreamEvent[] = [];

  if (completes) {
    if (!next.scrobbled) await logSessionWatch(tx, actor, input, media, m);
    const removed = await removeWatched(tx, actor.userId, media.title.id, episodeIds, input.playback_session_id, input.event_created_at);
    if (removed) events.push({ name: 'continue_watching.removed', data: { id: Number(removed) } });
    const ignored = next.scrobbled && !sessionChanged && !removed ? 'already_scrobbled' : null;
    return { ignored, state, events };
  }
  let rejected: IgnoredReason | null = null;
  if (m.progress !== null && m.progress > 0) {
    const moved = await moveProgress(tx, actor, input, media, { ...m, progress: m.progress });
    if (moved.kind === 'updated') events.push({ name: 'continue_watching.updated', data: moved.item });
    if (moved.kind === 'rejected') rejected = moved.reason;
  }
  // A stop's effect is the Continue Watching progress it carries (a passive snapshot): if that was
  // refused, the stop is ignored even when it opened a session.
  if (input.action === 'stop') {
    if (m.progress === null && (!session || !sessionChanged)) return { ignored: 'no_progress', events: [] };
    if (rejected) return { ignored: rejected, events: [] };
  }
  if (!sessionChanged && events.length === 0) return { ignored: rejected ?? 'no_change', events: [] };
  return { ignored: null, state, events };
}

async function apply(tx: EntityManager, actor: Actor, input: PlaybackEvent, title: ResolvedTitle): Promise<Applied> {
  const userId = actor.userId;
  await lockUserPlayback(tx, userId);
  const prior = await findReceipt(tx, userId, input.event_id);
  if (prior) return { response: { ...prior, deduped: true }, events: [] };

  const media = await resolveMedia(tx, input, title);
  const m = measure(input);
  const userThreshold = needsUserThreshold(input.action, input) ? await watchedThresholdOf(tx, userId) : undefined;
  const completes = completesWatch(input.action, input, m.progress, userThreshold);
  const session = await findSession(tx, userId, input.playback_session_id);
  const verdict = transition(session, input.action, input.event_created_at, completes);
  let outcome: Outcome;
  if (verdict.kind === 'apply') outcome = await applyInOrder(tx, actor, input, media, m, session, verdict.next, completes);
  else if (completes && !session!.scrobbled) {
    // A delayed event never replaces newer state; but a completed watch is a fact, logged once per session.
    await logSessionWatch(tx, actor, input, media, m);
    outcome = { ignored: null, events: [] };
  } else outcome = { ignored: 'stale_event', events: [] };

  const response = answer(input, media, outcome.ignored);
  await saveReceipt(tx, userId, input.event_id, response);
  const events = outcome.state && !outcome.ignored ? [sessionEvent(input, media, outcome.state, m, response), ...outcome.events] : [];
  return { response, events: await appendStreamEvents(tx, userId, events) };
}

/** Applies one playback event of the actor's user; see state.ts for the table. */
export async function recordPlaybackEvent(em: EntityManager, actor: Actor, input: PlaybackEvent): Promise<PlaybackResponse> {
  // Before the transaction: a title the catalog lacks may be fetched from the metadata provider.
  const title = await resolveEventTitle(em, input);
  const { response, events } = await transaction(em, (tx) => apply(tx, actor, input, title));
  await publishStreamEvents(em, events);
  return response;
}

/** Dismisses one Continue Watching entry (404 when there is no such listed entry of the user). */
export async function dismissContinueWatching(em: EntityManager, userId: string, id: number): Promise<void> {
  const events = await transaction(em, async (tx) => {
    await lockUserPlayback(tx, userId);
    await dismissEntry(tx, userId, id);
    return appendStreamEvents(tx, userId, [{ name: 'continue_watching.removed', data: { id } }]);
  });
  await publishStreamEvents(em, events);
}
