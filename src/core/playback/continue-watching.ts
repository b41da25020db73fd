// Continue Watching: one entry per user and title (a show's entry holds its episode in progress), moved
// only by events newer (event_created_at) than the one it holds. Dismissing or watching the title
// removes the entry but keeps its row as a tombstone whose last_event_at is moved past the removal, so
// only newer playback brings it back. Entries expire CW_TTL_DAYS after their last update.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange, type Change } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText } from '../paging/cursor.ts';
import { punchplayId } from './media.ts';
import type { ContinueWatchingItem } from './schemas.ts';

export const CW_TTL_DAYS = 30;
const TTL_MS = CW_TTL_DAYS * 24 * 60 * 60 * 1000;

type ItemRow = {
  id: string;
  type: 'movie' | 'show';
  movie_db_id: number;
  is_anime: boolean;
  name: string;
  year: number;
  poster_path: string;
  season_number: number | null;
  episode_number: number | null;
  episode_title: string | null;
  progress: number;
  position_seconds: number | null;
  duration_seconds: number | null;
  session_key: string;
  updated_at: Date;
  updated_key: string;
};

/** The item columns, read from `source` (the table, or a CTE of rows just written) as `c`. */
const selectItems = (source: string) => `
select c.id, t.type, t.movie_db_id, t.is_anime, t.name, t.year, t.poster_path, c.season_number, c.episode_number,
  e.name as episode_title, c.progress, c.position_seconds, c.duration_seconds, c.session_key, c.updated_at,
  c.updated_at::text as updated_key
from ${source} c join title t on t.id = c.title_id left join episode e on e.id = c.episode_id`;
const SELECT_ITEMS = selectItems('continue_watching');

/** Still listed: not removed, not expired. */
const LIVE = `c.removed_at is null and c.updated_at > now() - make_interval(days => ${CW_TTL_DAYS})`;

function toItem(r: ItemRow): ContinueWatchingItem {
  const updated = new Date(r.updated_at);
  return {
    id: Number(r.id),
    type: r.type,
    movieDbId: r.movie_db_id,
    punchplayId: punchplayId(r.type, r.movie_db_id),
    isAnime: r.is_anime,
    name: r.name,
    year: r.year,
    posterPath: r.poster_path,
    season: r.season_number,
    episode: r.episode_number,
    episodeTitle: r.episode_title,
    progress: r.progress,
    positionSeconds: r.position_seconds,
    durationSeconds: r.duration_seconds,
    playbackSessionId: r.session_key,
    updatedAt: updated.toISOString(),
    expiresAt: new Date(updated.getTime() + TTL_MS).toISOString(),
  };
}

/** The change-feed record of an entry (resource `playback`): the item as GET /me/continue-watching shows it. */
export const upsertChange = (item: ContinueWatchingItem): Change => ({ resource: 'playback', resourceId: item.id, op: 'upsert', data: item });
export const deleteChange = (id: string | number): Change => ({ resource: 'playback', resourceId: id, op: 'delete', data: null });

export type ProgressUpdate = {
  titleId: string;
  episodeId: string | null;
  season: number | null;
  episode: number | null;
  progress: number;
  positionSeconds: number | null;
  durationSeconds: number | null;
  sessionKey: string;
  eventAt: number;
  clientId: string;
};

export type ProgressOutcome = { kind: 'updated'; item: ContinueWatchingItem } | { kind: 'unchanged' } | { kind: 'rejected'; reason: 'stale_event' | 'dismissed' };

type Held = { id: string; removed: boolean; last_event_at: string; episode_id: string | null; progress: number; position_seconds: number | null; duration_seconds: number | null; session_key: string };

/**
 * Moves the title's entry to this progress if the event is newer than what it holds (or creates it).
 * Call under the user's playback lock (the entry is read, then written).
 */
export async function upsertProgress(tx: EntityManager, userId: string, u: ProgressUpdate): Promise<ProgressOutcome> {
  const [held] = await query<Held>(tx, {
    text: `select id, removed_at is not null as removed, last_event_at, episode_id, progress, position_seconds, duration_seconds, session_key
      from continue_watching where user_id = $1 and title_id = $2`,
    params: [userId, u.titleId],
  });
  if (held) {
    const last = Number(held.last_event_at);
    if (held.removed && u.eventAt <= last) return { kind: 'rejected', reason: 'dismissed' };
    if (!held.removed && u.eventAt < last) return { kind: 'rejected', reason: 'stale_event' };
    const same =
      !held.removed && (held.episode_id === null ? null : String(held.episode_id)) === u.episodeId && held.progress === u.progress &&
      held.position_seconds === u.positionSeconds && held.duration_seconds === u.durationSeconds && held.session_key === u.sessionKey;
    if (same) {
      await query(tx, { text: `update continue_watching set last_event_at = $2 where id = $1`, params: [held.id, u.eventAt] });
      return { kind: 'unchanged' };
    }
  }
  const [row] = await query<ItemRow>(tx, {
    text: `with written as (
      insert into continue_watching as c (user_id, title_id, episode_id, season_number, episode_number, progress,
        position_seconds, duration_seconds, session_key, last_event_at, client_id)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
      on conflict (user_id, title_id) do update set episode_id = excluded.episode_id, season_number = excluded.season_number,
        episode_number = excluded.episode_number, progress = excluded.progress, position_seconds = excluded.position_seconds,
        duration_seconds = excluded.duration_seconds, session_key = excluded.session_key, last_event_at = excluded.last_event_at,
        client_id = excluded.client_id, updated_at = now(), removed_at = null
      returning c.*)
      ${selectItems('written')}`,
    params: [userId, u.titleId, u.episodeId, u.season, u.episode, u.progress, u.positionSeconds, u.durationSeconds, u.sessionKey, u.eventAt, u.clientId],
  });
  const item = toItem(row!);
  await recordChange(tx, userId, upsertChange(item));
  return { kind: 'updated', item };
}

/**
 * A completed watch takes the title out of Continue Watching: a movie's entry, or a show's entry when it
 * holds one of the watched episodes or this session. Returns the removed entry's id.
 */
export async function removeWatched(tx: EntityManager, userId: string, titleId: string, episodeIds: string[], sessionKey: string, eventAt: number): Promise<string | null> {
  const [row] = await query<{ id: string }>(tx, {
    text: `update continue_watching set removed_at = now(), last_event_at = greatest(last_event_at, $5)
      where user_id = $1 and title_id = $2 and removed_at is null
        and (episode_id is null or episode_id = any($3::bigint[]) or session_key = $4)
      returning id`,
    params: [userId, titleId, episodeIds, sessionKey, eventAt],
  });
  if (!row) return null;
  await recordChange(tx, userId, deleteChange(row.id));
  return String(row.id);
}

/**
 * Dismisses an entry: it leaves Continue Watching until playback newer than now (by the events'
 * event_created_at) happens. 404 when the user has no such listed entry.
 */
export async function dismissEntry(tx: EntityManager, userId: string, id: number): Promise<void> {
  const [row] = await query<{ id: string }>(tx, {
    text: `update continue_watching c set removed_at = now(), last_event_at = greatest(c.last_event_at, $3)
      where c.id = $1 and c.user_id = $2 and ${LIVE} returning c.id`,
    params: [id, userId, Date.now()],
  });
  if (!row) throw notFound('Continue Watching entry');
  await recordChange(tx, userId, deleteChange(row.id));
}

export type Page = { items: ContinueWatchingItem[]; nextCursor?: string };

const isPosition = (p: unknown): p is [string, string] => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

/** The user's entries, most recently updated first, keyset-paged. */
export async function listContinueWatching(em: EntityManager, userId: string, opts: { limit: number; cursor?: string | undefined }): Promise<Page> {
  const params = { limit: opts.limit };
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, params, isPosition);
  const rows = await query<ItemRow>(em, {
    text: `${SELECT_ITEMS} where c.user_id = $1 and ${LIVE}
      and ($2::timestamptz is null or (c.updated_at, c.id) < ($2::timestamptz, $3::bigint))
      order by c.updated_at desc, c.id desc limit $4`,
    params: [userId, after?.[0] ?? null, after?.[1] ?? null, opts.limit + 1],
  });
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return {
    items: page.map(toItem),
    ...(rows.length > opts.limit && last ? { nextCursor: encodeCursor([last.updated_key, String(last.id)], params) } : {}),
  };
}

/**
 * Expired entries leave the change feed (a delete per entry) and the table; tombstones older than the
 * expiry go too (an event that old can no longer revive anything listed). Returns how many rows went.
 */
export function sweepContinueWatching(em: EntityManager): Promise<number> {
  return transaction(em, async (tx) => {
    const rows = await query<{ id: string; user_id: string; listed: boolean }>(tx, {
      text: `delete from continue_watching where coalesce(removed_at, updated_at) < now() - make_interval(days => $1)
        returning id, user_id, removed_at is null as listed`,
      params: [CW_TTL_DAYS],
    });
    for (const r of rows.filter((x) => x.listed)) await recordChange(tx, r.user_id, deleteChange(r.id));
    return rows.length;
  });
}

/** Events older than the expiry never move Continue Watching (what they would show has expired). */
export function tooOldForContinueWatching(eventAt: number): boolean {
  return eventAt < Date.now() - TTL_MS;
}
