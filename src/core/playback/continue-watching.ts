// Continue Watching: one entry per user and title (a show's entry holds its episode in progress), moved
// only by events newer (event_created_at) than the one it holds. Dismissing or watching the title
// removes the entry but keeps its row as a tombstone whose last_event_at is moved past the removal, so
// only newer playback brings it back. Entries expire CW_TTL_DAYS after their last update.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange, type Change } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText } from '../paging/cursor.ts';
import { punchplayId } from './media.ts';
import { type EntryWrite, deleteExpiredEntries, dismissListedEntry, removeEntryWatched, selectHeldEntry, selectListedEntries, touchEntry, upsertEntry } from './repository.ts';
import type { ContinueWatchingItem } from './schemas.ts';

export const CW_TTL_DAYS = 30;
const TTL_MS = CW_TTL_DAYS * 24 * 60 * 60 * 1000;

type ItemRow = Awaited<ReturnType<typeof selectListedEntries>>[number];

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
const upsertChange = (item: ContinueWatchingItem): Change => ({ resource: 'playback', resourceId: item.id, op: 'upsert', data: item });
const deleteChange = (id: string | number): Change => ({ resource: 'playback', resourceId: id, op: 'delete', data: null });

/** A progress report to keep (the entry's fields as the repository writes them). */
export type ProgressUpdate = EntryWrite;

export type ProgressOutcome = { kind: 'updated'; item: ContinueWatchingItem } | { kind: 'unchanged' } | { kind: 'rejected'; reason: 'stale_event' | 'dismissed' };

/**
 * Moves the title's entry to this progress if the event is newer than what it holds (or creates it).
 * Call under the user's playback lock (the entry is read, then written).
 */
export async function upsertProgress(tx: EntityManager, userId: string, u: ProgressUpdate): Promise<ProgressOutcome> {
  const held = await selectHeldEntry(tx, userId, u.titleId);
  if (held) {
    const last = Number(held.last_event_at);
    if (held.removed && u.eventAt <= last) return { kind: 'rejected', reason: 'dismissed' };
    if (!held.removed && u.eventAt < last) return { kind: 'rejected', reason: 'stale_event' };
    const same =
      !held.removed && (held.episode_id === null ? null : String(held.episode_id)) === u.episodeId && held.progress === u.progress &&
      held.position_seconds === u.positionSeconds && held.duration_seconds === u.durationSeconds && held.session_key === u.sessionKey;
    if (same) {
      await touchEntry(tx, held.id, u.eventAt);
      return { kind: 'unchanged' };
    }
  }
  const row = await upsertEntry(tx, userId, u);
  const item = toItem(row);
  await recordChange(tx, userId, upsertChange(item));
  return { kind: 'updated', item };
}

/**
 * A completed watch takes the title out of Continue Watching: a movie's entry, or a show's entry when it
 * holds one of the watched episodes or this session. Returns the removed entry's id.
 */
export async function removeWatched(tx: EntityManager, userId: string, titleId: string, episodeIds: string[], sessionKey: string, eventAt: number): Promise<string | null> {
  const id = await removeEntryWatched(tx, userId, titleId, episodeIds, sessionKey, eventAt);
  if (id === null) return null;
  await recordChange(tx, userId, deleteChange(id));
  return String(id);
}

/**
 * Dismisses an entry: it leaves Continue Watching until playback newer than now (by the events'
 * event_created_at) happens. 404 when the user has no such listed entry.
 */
export async function dismissEntry(tx: EntityManager, userId: string, id: number): Promise<void> {
  const removed = await dismissListedEntry(tx, userId, id, Date.now(), CW_TTL_DAYS);
  if (removed === null) throw notFound('Continue Watching entry');
  await recordChange(tx, userId, deleteChange(removed));
}

export type Page = { items: ContinueWatchingItem[]; nextCursor?: string };

const isPosition = (p: unknown): p is [string, string] => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

/** The user's entries, most recently updated first, keyset-paged. */
export async function listContinueWatching(em: EntityManager, userId: string, opts: { limit: number; cursor?: string | undefined }): Promise<Page> {
  const params = { limit: opts.limit };
  const after = opts.cursor === undefined ? null : decodeCursor(opts.cursor, params, isPosition);
  const rows = await selectListedEntries(em, userId, CW_TTL_DAYS, after, opts.limit + 1);
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
    const rows = await deleteExpiredEntries(tx, CW_TTL_DAYS);
    for (const r of rows.filter((x) => x.listed)) await recordChange(tx, r.user_id, deleteChange(r.id));
    return rows.length;
  });
}

/** Events older than the expiry never move Continue Watching (what they would show has expired). */
export function tooOldForContinueWatching(eventAt: number): boolean {
  return eventAt < Date.now() - TTL_MS;
}
