// The statements of the per-title figures (titles.ts): the rows kept, the same figures recounted from the
// user's entries of those titles only, the window in which a show counts as completed, and the furthest
// regular episode watched.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { minutesWatched } from './minutes.ts';
import { regularEpisodesWatched } from './regular-episodes.ts';

/** What a title's row counts from the user's entries of it (the rest of the row is recomputed in place). */
export type CountedTitleFigures = { title_id: string; watches: number; minutes: number; episodes: number; regular_episodes: number; last_watched_at: Date };

/** The kept rows of these titles (the counts the totals move by). */
export function keptTitleFigures(em: EntityManager, userId: string, titleIds: readonly string[]) {
  return db(em)
    .selectFrom('user_title_figures')
    .select(['title_id', 'watches', 'minutes', 'episodes'])
    .where('user_id', '=', userId)
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}

/** What the user's entries of these titles add up to (titles without an entry are absent). */
export function countedTitleFigures(em: EntityManager, userId: string, titleIds: readonly string[]): Promise<CountedTitleFigures[]> {
  return db(em)
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => [
      'w.title_id',
      eb.cast<number>(eb.fn.countAll(), 'integer').as('watches'),
      eb.cast<number>(minutesWatched, 'integer').as('minutes'),
      eb.cast<number>(eb.fn.count('w.episode_id').distinct(), 'integer').as('episodes'),
      eb.cast<number>(regularEpisodesWatched, 'integer').as('regular_episodes'),
      eb.fn.max('w.watched_at').as('last_watched_at'),
    ])
    .where('w.user_id', '=', userId)
    .where((eb) => eb('w.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .groupBy('w.title_id')
    .execute();
}

/**
 * Recomputes, for every row of these titles (or only the user's), the window in which the show counts as
 * completed: from the first air date of a watched regular episode, until the first air date of an
 * unwatched one. An episode without an air date counts as aired ('-infinity'). Movies get nulls.
 */
export async function refreshCompletionWindows(tx: EntityManager, titleIds: readonly string[], userId?: string): Promise<void> {
  if (titleIds.length === 0) return;
  const fe = expressionBuilder<Tables & { f: Tables['user_title_figures'] }, 'f'>();
  const firstAired = (watched: boolean) =>
    fe
      .selectFrom('episode as e')
      .select((s) => s.fn.min(s.fn.coalesce('e.air_date', s.cast<string>(s.val('-infinity'), 'date'))).as('d'))
      .whereRef('e.title_id', '=', 'f.title_id')
      .where('e.season_number', '>', 0)
      .where((s) => {
        const exists = s.exists(
          s
            .selectFrom('watch_history as w')
            .select(s.lit(1).as('one'))
            .whereRef('w.user_id', '=', 'f.user_id')
            .whereRef('w.title_id', '=', 'e.title_id')
            .whereRef('w.episode_id', '=', 'e.id'),
        );
        return watched ? exists : s.not(exists);
      });
  await db(tx)
    .updateTable('user_title_figures as f')
    .set({ completed_from: firstAired(true), completed_until: firstAired(false) })
    .where((eb) => eb('f.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .$if(userId !== undefined, (q) => q.where('f.user_id', '=', userId!))
    .execute();
}

export function titleKinds(em: EntityManager, titleIds: readonly string[]) {
  return db(em)
    .selectFrom('title')
    .select(['id', 'type', 'is_anime'])
    .where((eb) => eb('id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}

/**
 * Recomputes, for the user's rows of these titles, the furthest regular episode watched (by season and
 * episode number): read from the user's entries of each title only.
 */
export async function refreshFurthestEpisodes(tx: EntityManager, titleIds: readonly string[], userId: string): Promise<void> {
  if (titleIds.length === 0) return;
  const fe = expressionBuilder<Tables & { f: Tables['user_title_figures'] }, 'f'>();
  const furthest = (column: 'e.season_number' | 'e.episode_number') =>
    fe
      .selectFrom('watch_history as w')
      .innerJoin('episode as e', 'e.id', 'w.episode_id')
      .select(column)
      .whereRef('w.user_id', '=', 'f.user_id')
      .whereRef('w.title_id', '=', 'f.title_id')
      .where('e.season_number', '>', 0)
      .orderBy('e.season_number', 'desc')
      .orderBy('e.episode_number', 'desc')
      .limit(1);
  await db(tx)
    .updateTable('user_title_figures as f')
    .set({ last_season: furthest('e.season_number'), last_episode: furthest('e.episode_number') })
    .where('f.user_id', '=', userId)
    .where((eb) => eb('f.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}

export async function upsertTitleFigures(tx: EntityManager, userId: string, rows: readonly CountedTitleFigures[]): Promise<void> {
  if (rows.length === 0) return;
  await db(tx)
    .insertInto('user_title_figures')
    .values(rows.map((r) => ({ user_id: userId, ...r })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'title_id']).doUpdateSet((eb) => ({
        watches: eb.ref('excluded.watches'),
        minutes: eb.ref('excluded.minutes'),
        episodes: eb.ref('excluded.episodes'),
        regular_episodes: eb.ref('excluded.regular_episodes'),
        last_watched_at: eb.ref('excluded.last_watched_at'),
      })),
    )
    .execute();
}

export async function deleteTitleFigures(tx: EntityManager, userId: string, titleIds: readonly string[]): Promise<void> {
  if (titleIds.length === 0) return;
  await db(tx)
    .deleteFrom('user_title_figures')
    .where('user_id', '=', userId)
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}
