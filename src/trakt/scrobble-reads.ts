// The reads the scrobble and check-in routes need that no procedure answers, each one index lookup:
// the user's latest watch of an item (watch_history_user_item), the user's watch dated in the future
// (a check-in in progress, watch_history_user_time), and the Continue Watching entry of a title
// (its unique (user_id, title_id)). Writes all go through the playback and history procedures.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../core/db/query-builder.ts';
import type { Item } from './scrobble-items.ts';

export type Watch = { id: string; watchedAt: Date; runtimeMinutes: number | null; titleId: string; episodeId: string | null };

/** The user's latest watch of the item (any source), or null. */
export async function latestWatchOf(em: EntityManager, userId: string, item: Item): Promise<Watch | null> {
  const row = await db(em)
    .selectFrom('watch_history')
    .select(['id', 'watched_at', 'runtime_minutes', 'title_id', 'episode_id'])
    .where('user_id', '=', userId)
    .where('title_id', '=', item.title.id)
    .where((eb) => (item.episode ? eb('episode_id', '=', item.episode.id) : eb('episode_id', 'is', null)))
    .orderBy('watched_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toWatch(row) : null;
}

/** The user's latest watch dated after now: a check-in that has not ended yet. */
export async function watchInProgress(em: EntityManager, userId: string): Promise<Watch[]> {
  const rows = await db(em)
    .selectFrom('watch_history')
    .select(['id', 'watched_at', 'runtime_minutes', 'title_id', 'episode_id'])
    .where('user_id', '=', userId)
    .where('watched_at', '>', new Date())
    .orderBy('watched_at', 'desc')
    // A check-in refuses another while one runs: there is one at most, a few if several apps raced.
    .limit(10)
    .execute();
  return rows.map(toWatch);
}

function toWatch(r: { id: string; watched_at: Date; runtime_minutes: number | null; title_id: string; episode_id: string | null }): Watch {
  return { id: String(r.id), watchedAt: new Date(r.watched_at), runtimeMinutes: r.runtime_minutes, titleId: String(r.title_id), episodeId: r.episode_id === null ? null : String(r.episode_id) };
}

/** The id of the user's listed Continue Watching entry of the title, or null. */
export async function continueWatchingIdOf(em: EntityManager, userId: string, titleId: string): Promise<number | null> {
  const row = await db(em)
    .selectFrom('continue_watching')
    .select('id')
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}
