// Wire shapes of the playback module: the playback event body (POST /playback/{action} in the platform OpenAPI document), its 200 answer, and the
// Continue Watching item. Bodies are strict (unknown fields are a 400) and every number has a range.
import { z } from 'zod';
import type { PlaybackResponse } from '../schema/playback.ts';
import { ID_MAX } from '../wire/numbers.ts';

const PLAYBACK_ACTIONS = ['start', 'pause', 'resume', 'stop', 'progress'] as const;
export type PlaybackAction = (typeof PLAYBACK_ACTIONS)[number];

/**
 * Why an accepted event changed nothing (`ignored`; null when it changed something):
 * - `stale_event`: older (`event_created_at`) than what the session or the title's Continue Watching
 *   entry already holds, e.g. a delayed passive snapshot;
 * - `dismissed`: the title's Continue Watching entry was dismissed or watched after this event happened;
 * - `already_scrobbled`: a completed stop of a session whose watch is already in the history;
 * - `no_progress`: an incomplete stop without `progress` (or `position_seconds` and `duration_seconds`);
 * - `no_change`: the session already had this state and progress.
 */
export const IGNORED_REASONS = ['stale_event', 'dismissed', 'already_scrobbled', 'no_progress', 'no_change'] as const;
export type IgnoredReason = (typeof IGNORED_REASONS)[number];

/** Clients' clocks may run ahead; further ahead than this is a 400 (it would outrank every later event). */
const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
/** 2000-01-01T00:00:00Z: no playback event is older. */
const MIN_EVENT_TIME_MS = 946_684_800_000;
const MAX_DURATION_SECONDS = 7 * 24 * 60 * 60;
/** A multi-episode file covers at most this many episodes. */
const MAX_EPISODE_SPAN = 50;
export const DEFAULT_WATCHED_THRESHOLD = 0.8;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const text = (max: number) => z.string().min(1).max(max);

export const playbackEventInput = z
  .object({
    action: z.enum(PLAYBACK_ACTIONS).describe('`start`, `pause`, `resume`, `stop` or `progress`; anything else is a 400 `invalid_request`.'),
    event_id: text(200).describe('Client id of this event; a repeat (per user, kept 7 days) answers the first answer with `deduped: true`.'),
    event_created_at: int(MIN_EVENT_TIME_MS, Number.MAX_SAFE_INTEGER)
      .refine((v) => v <= Date.now() + MAX_FUTURE_MS, 'must not be more than 24 hours in the future')
      .describe('Client timestamp in milliseconds: orders the events of a session and dates the watch. From 2000-01-01 to 24 hours ahead of the server clock.'),
    media_type: z.enum(['movie', 'episode']),
    title: text(500),
    playback_session_id: text(200).describe('Stable per playback session.'),
    season: int(0, 10_000).optional().describe('Required when media_type is `episode`.'),
    episode: int(1, 100_000).optional().describe('Required when media_type is `episode`.'),
    year: int(1850, 2200).optional(),
    episode_end: int(1, 100_000).optional().describe(`Last episode of a multi-episode file (same numbering as \`episode\`, at most ${MAX_EPISODE_SPAN} episodes in all).`),
    absolute_episode: int(1, 100_000).optional().describe('Absolute episode number (anime numbering); mapped to season and episode. Preferred over season/episode for anime.'),
    film_db_id: z.string().regex(/^tt\d{1,10}$/, 'must be a tt… id').optional(),
    movie_db_id: int(1, ID_MAX).optional(),
    tv_db_id: int(1, ID_MAX).optional(),
    punchplay_id: z
      .string()
      .regex(/^(movie|show)-[1-9]\d{0,9}$/, 'must be the service\'s title id, `movie-{movieDbId}` or `show-{movieDbId}`')
      .optional()
      .describe('The service\'s own title id, `{type}-{movieDbId}` (e.g. `movie-129`, `show-9000001`), as in catalog items. Tried first.'),
    episode_title: text(500).optional(),
    multi_episode: z.boolean().optional(),
    anime: z.boolean().optional(),
    watched: z.boolean().optional().describe('On `stop`: true logs the watch whatever the progress; false keeps it in progress whatever the progress.'),
    progress: z.number().min(0).max(1).optional().describe('Ratio 0 to 1. Without it, position_seconds / duration_seconds.'),
    duration_seconds: int(1, MAX_DURATION_SECONDS).optional(),
    position_seconds: int(0, MAX_DURATION_SECONDS).optional().describe('Derived from progress × duration_seconds when not sent.'),
    device_id: text(200).optional(),
    client_version: text(200).optional(),
    raw_filename: text(1000).optional(),
    watched_threshold: z.number().gt(0).max(1).optional().describe(`Progress at or over which a stop logs the watch; default: the user's \`watchedThreshold\` preference (GET /me/preferences), else ${DEFAULT_WATCHED_THRESHOLD}.`),
    media_server_user_id: text(200).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (v.media_type === 'episode') {
      if (v.season === undefined) issue('season', 'is required when media_type is episode');
      if (v.episode === undefined) issue('episode', 'is required when media_type is episode');
    } else {
      for (const f of ['season', 'episode', 'episode_end', 'absolute_episode'] as const) {
        if (v[f] !== undefined) issue(f, 'is only for media_type episode');
      }
    }
    if (v.episode_end !== undefined && v.episode !== undefined && (v.episode_end < v.episode || v.episode_end - v.episode >= MAX_EPISODE_SPAN)) {
      issue('episode_end', `must be from episode to episode + ${MAX_EPISODE_SPAN - 1}`);
    }
    if (v.position_seconds !== undefined && v.duration_seconds !== undefined && v.position_seconds > v.duration_seconds) {
      issue('position_seconds', 'must not exceed duration_seconds');
    }
    const punchplayType = v.punchplay_id?.split('-')[0];
    if (punchplayType && punchplayType !== (v.media_type === 'movie' ? 'movie' : 'show')) {
      issue('punchplay_id', `names a ${punchplayType}, but media_type is ${v.media_type}`);
    }
  });

export type PlaybackEventInput = z.infer<typeof playbackEventInput>;

export const playbackResponse = z
  .object({
    ok: z.boolean().describe('Always true on a 200: the event was accepted.'),
    media_type: z.enum(['movie', 'episode']),
    movie_db_id: z.number().int().nullable().describe('The resolved title\'s movie_db_id.'),
    tv_db_id: z.number().int().nullable().describe('The resolved title\'s tv_db_id, null when the catalog has none.'),
    film_db_id: z.string().nullable().describe('The resolved title\'s film_db_id, null when the catalog has none.'),
    punchplay_id: z.string().nullable().describe('The resolved title\'s service id, `{type}-{movieDbId}`.'),
    deduped: z.boolean().describe('True when this event_id was accepted before: the first answer is repeated and nothing is applied.'),
    ignored: z.enum(IGNORED_REASONS).nullable().describe('Why the event changed nothing; null when it changed something.'),
    season: z.number().int().nullable().describe('Resolved season (null for movies).'),
    episode: z.number().int().nullable().describe('Resolved episode (null for movies).'),
    episode_end: z.number().int().nullable().describe('Last episode logged of a multi-episode file; null otherwise.'),
    absolute_episode: z.number().int().nullable().describe('Absolute number of the resolved episode, when known.'),
    anime: z.boolean().describe('Whether the resolved title is anime.'),
  })
  .strict();

// The stored receipt's type (schema/playback.ts) is this answer, field for field, each way.
const _receiptIsTheAnswer: [PlaybackResponse, z.infer<typeof playbackResponse>] extends [z.infer<typeof playbackResponse>, PlaybackResponse] ? true : false = true;

export const continueWatchingItem = z
  .object({
    id: z.number().int().min(1).describe('Entry id (stable for the title; used to dismiss).'),
    type: z.enum(['movie', 'show']),
    movieDbId: z.number().int().min(1),
    punchplayId: z.string().describe('The service\'s title id, `{type}-{movieDbId}`.'),
    isAnime: z.boolean(),
    name: z.string(),
    year: z.number().int(),
    posterPath: z.string(),
    season: z.number().int().nullable().describe('The episode in progress (null for movies).'),
    episode: z.number().int().nullable(),
    episodeTitle: z.string().nullable(),
    progress: z.number().min(0).max(1),
    positionSeconds: z.number().int().nullable(),
    durationSeconds: z.number().int().nullable(),
    playbackSessionId: z.string(),
    updatedAt: z.string().describe('Server time of the last playback event that moved this entry.'),
    expiresAt: z.string().describe('When the entry disappears without further playback (30 days after updatedAt).'),
  })
  .strict()
  .meta({ id: 'ContinueWatchingItem' });

export type ContinueWatchingItem = z.infer<typeof continueWatchingItem>;
