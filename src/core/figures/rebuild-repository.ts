// The statements that recompute a user's figures from their rows (rebuild.ts): for repairs, upgrades and
// the test that compares every kept figure with the rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { entryMinutes } from './minutes.ts';
import { regularEpisodesWatched } from './regular-episodes.ts';
import { userFigures } from './totals.ts';

const FIGURE_TABLES = ['user_figures', 'user_title_figures', 'user_day_figures', 'user_month_genre', 'user_streak_run', 'user_year_title'] as const;

export async function dropFigures(tx: EntityManager, userId: string): Promise<void> {
  for (const table of FIGURE_TABLES) await db(tx).deleteFrom(table).where('user_id', '=', userId).execute();
}

/** Per title: entries, minutes, different episodes and regular episodes, the latest watch. */
export async function fillTitleFigures(tx: EntityManager, userId: string): Promise<string[]> {
  const k = db(tx);
  const rows = await k
    .insertInto('user_title_figures')
    .columns(['user_id', 'title_id', 'watches', 'minutes', 'episodes', 'regular_episodes', 'last_watched_at'])
    .expression(
      k
        .selectFrom('watch_history as w')
        .innerJoin('title as t', 't.id', 'w.title_id')
        .leftJoin('episode as e', 'e.id', 'w.episode_id')
        .select((eb) => [
          'w.user_id',
          'w.title_id',
          eb.cast<number>(eb.fn.countAll(), 'integer').as('watches'),
          eb.cast<number>(eb.fn.sum(entryMinutes), 'integer').as('minutes'),
          eb.cast<number>(eb.fn.count('w.episode_id').distinct(), 'integer').as('episodes'),
          eb.cast<number>(regularEpisodesWatched, 'integer').as('regular_episodes'),
          eb.fn.max('w.watched_at').as('last_watched_at'),
        ])
        .where('w.user_id', '=', userId)
        .groupBy(['w.user_id', 'w.title_id']),
    )
    .returning('title_id')
    .execute();
  return rows.map((r) => r.title_id);
}

/** Per UTC day: entries, movie and episode entries, minutes; and ratings given (by rated_at). */
export async function fillDayFigures(tx: EntityManager, userId: string): Promise<void> {
  const k = db(tx);
  await k
    .insertInto('user_day_figures')
    .columns(['user_id', 'day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
    .expression(
      k
        .selectFrom((eb) =>
          eb
            .selectFrom('watch_history as w')
            .innerJoin('title as t', 't.id', 'w.title_id')
            .leftJoin('episode as e', 'e.id', 'w.episode_id')
            .select((eb) => [
              eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), 'w.watched_at']), 'date').as('day'),
              eb.cast<number>(eb.lit(1), 'integer').as('watches'),
              eb.case().when('t.type', '=', 'movie').then(eb.lit(1)).else(eb.lit(0)).end().$castTo<number>().as('movies'),
              eb.case().when('t.type', '=', 'show').then(eb.lit(1)).else(eb.lit(0)).end().$castTo<number>().as('episodes'),
              eb.cast<number>(entryMinutes, 'integer').as('minutes'),
              eb.cast<number>(eb.lit(0), 'integer').as('ratings'),
            ])
            .where('w.user_id', '=', userId)
            .unionAll(
              eb
                .selectFrom('user_rating as r')
                .select((eb) => [
                  eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), 'r.rated_at']), 'date').as('day'),
                  eb.cast<number>(eb.lit(0), 'integer').as('watches'),
                  eb.cast<number>(eb.lit(0), 'integer').as('movies'),
                  eb.cast<number>(eb.lit(0), 'integer').as('episodes'),
                  eb.cast<number>(eb.lit(0), 'integer').as('minutes'),
                  eb.cast<number>(eb.lit(1), 'integer').as('ratings'),
                ])
                .where('r.user_id', '=', userId),
            )
            .as('x'),
        )
        .select((eb) => [
          eb.val(userId).as('user_id'),
          'x.day',
          eb.cast<number>(eb.fn.sum('x.watches'), 'integer').as('watches'),
          eb.cast<number>(eb.fn.sum('x.movies'), 'integer').as('movies'),
          eb.cast<number>(eb.fn.sum('x.episodes'), 'integer').as('episodes'),
          eb.cast<number>(eb.fn.sum('x.minutes'), 'integer').as('minutes'),
          eb.cast<number>(eb.fn.sum('x.ratings'), 'integer').as('ratings'),
        ])
        .groupBy('x.day'),
    )
    .execute();
}

/** Per UTC month and genre: entries of titles of that genre. */
export async function fillMonthGenres(tx: EntityManager, userId: string): Promise<void> {
  const k = db(tx);
  await k
    .insertInto('user_month_genre')
    .columns(['user_id', 'month', 'genre', 'watches'])
    .expression(
      k
        .selectFrom((eb) =>
          eb
            .selectFrom('watch_history as w')
            .innerJoin('title as t', 't.id', 'w.title_id')
            .select((eb) => [
              eb.cast<string>(eb.fn('date_trunc', [eb.val('month'), eb.fn('timezone', [eb.val('UTC'), 'w.watched_at'])]), 'date').as('month'),
              eb.fn<string>('unnest', ['t.genres']).as('genre'),
            ])
            .where('w.user_id', '=', userId)
            .as('g'),
        )
        .select((eb) => [eb.val(userId).as('user_id'), 'g.month', 'g.genre', eb.cast<number>(eb.fn.countAll(), 'integer').as('watches')])
        .groupBy(['g.month', 'g.genre']),
    )
    .execute();
}

/**
 * Per UTC year and title: entries and their minutes. The year is computed in a subquery, so the grouping
 * names its column (the same expression twice would carry its text parameters twice, and PostgreSQL
 * would not see them as one).
 */
export async function fillYearTitles(tx: EntityManager, userId: string): Promise<void> {
  const k = db(tx);
  await k
    .insertInto('user_year_title')
    .columns(['user_id', 'year', 'title_id', 'watches', 'minutes'])
    .expression(
      k
        .selectFrom((eb) =>
          eb
            .selectFrom('watch_history as w')
            .innerJoin('title as t', 't.id', 'w.title_id')
            .leftJoin('episode as e', 'e.id', 'w.episode_id')
            .select((eb) => [
              eb.cast<number>(eb.fn('date_part', [eb.val('year'), eb.fn('timezone', [eb.val('UTC'), 'w.watched_at'])]), 'integer').as('year'),
              'w.title_id',
              eb.cast<number>(entryMinutes, 'integer').as('minutes'),
            ])
            .where('w.user_id', '=', userId)
            .as('y'),
        )
        .select((eb) => [
          eb.val(userId).as('user_id'),
          'y.year',
          'y.title_id',
          eb.cast<number>(eb.fn.countAll(), 'integer').as('watches'),
          eb.cast<number>(eb.fn.sum('y.minutes'), 'integer').as('minutes'),
        ])
        .groupBy(['y.year', 'y.title_id']),
    )
    .execute();
}

export async function ratingsHeld(em: EntityManager, userId: string): Promise<number> {
  const row = await db(em)
    .selectFrom('user_rating')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Every kept figure row of the user, in a stable order (what the rebuild is compared with). */
export async function figureRows(em: EntityManager, userId: string) {
  const k = db(em);
  return {
    // A user whose figures all went back to 0 may keep a row of zeros: the same as none.
    totals: await userFigures(em, userId),
    titles: await k.selectFrom('user_title_figures').selectAll().where('user_id', '=', userId).orderBy('title_id').execute(),
    days: await k.selectFrom('user_day_figures').selectAll().where('user_id', '=', userId).orderBy('day').execute(),
    genres: await k.selectFrom('user_month_genre').selectAll().where('user_id', '=', userId).orderBy('month').orderBy('genre').execute(),
    runs: await k.selectFrom('user_streak_run').selectAll().where('user_id', '=', userId).orderBy('first_day').execute(),
    yearTitles: await k.selectFrom('user_year_title').selectAll().where('user_id', '=', userId).orderBy('year').orderBy('title_id').execute(),
    libraryCounts: await k.selectFrom('user_library_count').selectAll().where('user_id', '=', userId).orderBy('list').orderBy('category').orderBy('scope').orderBy('status').execute(),
  };
}

/** The totals that follow from the per-title rows. */
export function titleTotals(em: EntityManager, userId: string) {
  return db(em)
    .selectFrom('user_title_figures as f')
    .innerJoin('title as t', 't.id', 'f.title_id')
    .select((eb) => [
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.watches'), eb.lit(0)), 'integer').as('watches'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.minutes'), eb.lit(0)), 'integer').as('minutes'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.episodes'), eb.lit(0)), 'integer').as('episodes'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.type', '=', 'movie'), 'integer').as('movies'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.type', '=', 'show'), 'integer').as('shows'),
      eb.cast<number>(eb.fn.countAll().filterWhere(eb.ref('t.is_anime')), 'integer').as('anime_titles'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.watches').filterWhere('t.type', '=', 'movie'), eb.lit(0)), 'integer').as('movie_watches'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.minutes').filterWhere('t.type', '=', 'movie'), eb.lit(0)), 'integer').as('movie_minutes'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.watches').filterWhere('t.type', '=', 'show'), eb.lit(0)), 'integer').as('episode_watches'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.sum('f.minutes').filterWhere('t.type', '=', 'show'), eb.lit(0)), 'integer').as('episode_minutes'),
    ])
    .where('f.user_id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** How many users there are (the progress of a rebuild of everyone). */
export async function userCount(em: EntityManager): Promise<number> {
  const row = await db(em).selectFrom('app_user').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).executeTakeFirstOrThrow();
  return row.n;
}

/** The next `limit` user ids after `after` (null: from the first), in id order: a rebuild's batches. */
export async function userIdsAfter(em: EntityManager, after: string | null, limit: number): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('app_user')
    .select('id')
    .$if(after !== null, (q) => q.where('id', '>', after!))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
