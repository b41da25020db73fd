// The community statistics' reads (community-stats.ts) over the user's watch history and ratings. Days,
// weeks (ISO, from Monday) and months are UTC: `timezone('UTC', t)` is `t at time zone 'UTC'`.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { minutesWatched } from '../library/history-repository.ts';

type Watches = Tables & { w: Tables['watch_history']; t: Tables['title'] };

/** A timestamp's UTC day (a date, as 'YYYY-MM-DD'). */
const utcDay = (eb: ExpressionBuilder<Watches, 'w'>) => eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), 'w.watched_at']), 'date');

/** Movie and episode watches in [from, to], and their runtime in minutes (int8, as text). */
export function monthWatches(em: EntityManager, userId: string, from: Date, to: Date) {
  return db(em)
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere('t.type', '=', 'movie'), 'integer').as('movies'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.type', '=', 'show'), 'integer').as('episodes'),
      minutesWatched.as('minutes'),
    ])
    .where('w.user_id', '=', userId)
    .where('w.watched_at', '>=', from)
    .where('w.watched_at', '<=', to)
    .executeTakeFirstOrThrow();
}

/** Genres of the watches in [from, to] (each watch once per genre of its title), most watched first. */
export function monthGenres(em: EntityManager, userId: string, from: Date, to: Date) {
  return db(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('watch_history as w')
        .innerJoin('title as t', 't.id', 'w.title_id')
        .select((eb) => eb.fn<string>('unnest', ['t.genres']).as('name'))
        .where('w.user_id', '=', userId)
        .where('w.watched_at', '>=', from)
        .where('w.watched_at', '<=', to)
        .as('g'),
    )
    .select((eb) => ['g.name', eb.cast<number>(eb.fn.countAll(), 'integer').as('count')])
    .groupBy('g.name')
    .orderBy('count', 'desc')
    .orderBy('g.name')
    .execute();
}

/** Ratings given (or last changed) in [from, to]. */
export function monthReviews(em: EntityManager, userId: string, from: Date, to: Date) {
  return db(em)
    .selectFrom('user_rating')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('user_id', '=', userId)
    .where('rated_at', '>=', from)
    .where('rated_at', '<=', to)
    .executeTakeFirstOrThrow();
}

/**
 * The run of consecutive UTC days with a watch that ends on the latest such day up to `until`: its
 * length and last day ('YYYY-MM-DD', null without watches). Gaps and islands: within a run, day minus
 * its rank is constant.
 */
export function latestRun(em: EntityManager, userId: string, until: Date) {
  return db(em)
    .with('days', (qb) =>
      qb
        .selectFrom('watch_history as w')
        .select((eb) => utcDay(eb).as('d'))
        .distinct()
        .where('w.user_id', '=', userId)
        .where('w.watched_at', '<=', until),
    )
    .with('runs', (qb) =>
      qb
        .selectFrom('days')
        // A date minus an integer is a date.
        .select((eb) => ['d', eb('d', '-', eb.cast(eb.fn.agg('row_number').over((ob) => ob.orderBy('d')), 'integer').$castTo<string>()).as('run')]),
    )
    .selectFrom('runs')
    .select((eb) => [eb.cast<number>(eb.fn.countAll(), 'integer').as('days'), eb.fn<string | null>('to_char', [eb.fn.max('d'), eb.val('YYYY-MM-DD')]).as('last')])
    .where('run', '=', (eb) => eb.selectFrom('runs').select('run').orderBy('d', 'desc').limit(1))
    .executeTakeFirstOrThrow();
}

/** Per ISO week (its Monday, 'YYYY-MM-DD') with a watch or a rating up to `until`: movies, episodes, days with a watch, ratings. */
export function weekActivity(em: EntityManager, userId: string, until: Date) {
  // A week is date_trunc('week', the UTC timestamp): a timestamp, only compared and formatted here.
  return db(em)
    .with('watches', (qb) =>
      qb
        .selectFrom((eb) =>
          eb
            .selectFrom('watch_history as w')
            .innerJoin('title as t', 't.id', 'w.title_id')
            .select((eb) => [eb.fn<string>('date_trunc', [eb.val('week'), eb.fn('timezone', [eb.val('UTC'), 'w.watched_at'])]).as('week'), utcDay(eb).as('day'), 't.type'])
            .where('w.user_id', '=', userId)
            .where('w.watched_at', '<=', until)
            .as('x'),
        )
        .select((eb) => [
          'x.week',
          eb.cast<number>(eb.fn.countAll().filterWhere('x.type', '=', 'movie'), 'integer').as('movies'),
          eb.cast<number>(eb.fn.countAll().filterWhere('x.type', '=', 'show'), 'integer').as('episodes'),
          eb.cast<number>(eb.fn.count('x.day').distinct(), 'integer').as('active_days'),
        ])
        .groupBy('x.week'),
    )
    .with('ratings', (qb) =>
      qb
        .selectFrom((eb) =>
          eb
            .selectFrom('user_rating')
            .select((eb) => eb.fn<string>('date_trunc', [eb.val('week'), eb.fn('timezone', [eb.val('UTC'), 'rated_at'])]).as('week'))
            .where('user_id', '=', userId)
            .where('rated_at', '<=', until)
            .as('x'),
        )
        .select((eb) => ['x.week', eb.cast<number>(eb.fn.countAll(), 'integer').as('ratings')])
        .groupBy('x.week'),
    )
    .selectFrom('watches as w')
    .fullJoin('ratings as r', 'r.week', 'w.week')
    .select((eb) => [
      eb.fn<string>('to_char', [eb.fn.coalesce('w.week', 'r.week'), eb.val('YYYY-MM-DD')]).as('week'),
      eb.fn.coalesce('w.movies', eb.lit(0)).as('movies'),
      eb.fn.coalesce('w.episodes', eb.lit(0)).as('episodes'),
      eb.fn.coalesce('w.active_days', eb.lit(0)).as('active_days'),
      eb.fn.coalesce('r.ratings', eb.lit(0)).as('ratings'),
    ])
    .execute();
}
