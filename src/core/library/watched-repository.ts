// What the user has watched, per title and per episode: the titles from the kept per-title figures
// (user_title_figures: entries and the latest watch of each title, one row per title, so a read costs the
// titles and never the history), and the episodes of some shows from their entries (the
// watch_history_user_item index, bounded by those shows).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { airedEpisode } from './history-repository.ts';

/** The user's watched titles of one type, latest watch first; a window of them when `page` is given. */
export function watchedTitles(em: EntityManager, userId: string, type: 'movie' | 'show', page?: { offset: number; limit: number }) {
  let q = db(em)
    .selectFrom('user_title_figures as f')
    .innerJoin('title as t', 't.id', 'f.title_id')
    .select(['f.title_id', 't.movie_db_id', 't.type', 'f.watches', 'f.last_watched_at'])
    .where('f.user_id', '=', userId)
    .where('t.type', '=', type)
    .orderBy('f.last_watched_at', 'desc')
    .orderBy('f.title_id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

/** How many titles of the type the user has watched (the kept totals: different movies, different shows). */
export async function watchedTitleCount(em: EntityManager, userId: string, type: 'movie' | 'show'): Promise<number> {
  const row = await db(em).selectFrom('user_figures').select(['movies', 'shows']).where('user_id', '=', userId).executeTakeFirst();
  return row ? (type === 'movie' ? row.movies : row.shows) : 0;
}

/** Per watched episode of these shows: its entries and the latest of them, by season and number. */
export function watchedEpisodes(em: EntityManager, userId: string, titleIds: readonly string[]) {
  if (titleIds.length === 0) return Promise.resolve([]);
  return db(em)
    .selectFrom('watch_history as w')
    .select((eb) => [
      'w.title_id',
      'w.season_number',
      'w.episode_number',
      eb.cast<number>(eb.fn.countAll(), 'integer').as('plays'),
      eb.fn.max('w.watched_at').as('last_watched_at'),
    ])
    .where('w.user_id', '=', userId)
    .where((eb) => eb('w.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .where('w.episode_id', 'is not', null)
    .groupBy(['w.title_id', 'w.season_number', 'w.episode_number'])
    .orderBy('w.title_id')
    .orderBy('w.season_number')
    .orderBy('w.episode_number')
    .execute();
}

/** Aired regular episodes (season 1 and up) of these shows, by show (a show without any is left out). */
export function airedEpisodeCounts(em: EntityManager, titleIds: readonly string[]) {
  if (titleIds.length === 0) return Promise.resolve([]);
  return db(em)
    .selectFrom('episode as e')
    .select((eb) => ['e.title_id', eb.cast<number>(eb.fn.countAll(), 'integer').as('aired')])
    .where((eb) => eb('e.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .where('e.season_number', '>', 0)
    .where(airedEpisode())
    .groupBy('e.title_id')
    .execute();
}
