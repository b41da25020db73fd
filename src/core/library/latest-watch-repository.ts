// A user's latest watch of one title or episode, and their watches dated after now (a check-in that has
// not ended: the Trakt-compatible facade records one as a watch at its end), each one index lookup
// (watch_history_user_item, watch_history_user_time).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type Watch = { id: string; watchedAt: Date; runtimeMinutes: number | null; titleId: string; episodeId: string | null };

/** The user's latest watch of the title (of the episode, or of the movie itself with none), or null. */
export async function latestWatchOf(em: EntityManager, userId: string, titleId: string, episodeId: string | null): Promise<Watch | null> {
  const row = await db(em)
    .selectFrom('watch_history')
    .select(['id', 'watched_at', 'runtime_minutes', 'title_id', 'episode_id'])
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .where((eb) => (episodeId ? eb('episode_id', '=', episodeId) : eb('episode_id', 'is', null)))
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
