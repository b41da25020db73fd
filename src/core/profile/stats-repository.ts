// The community statistics' reads (community-stats.ts): the kept figures (days, this month's genres) and
// the few rows that lie after `now` (entries and ratings logged ahead of the clock, within the skew
// allowance; a pinned clock in tests), which the figures count but "now" does not yet.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { entryMinutes } from '../figures/minutes.ts';

/** The user's day rows from `from` on (days after today are only those logged ahead of the clock). */
export function daysFrom(em: EntityManager, userId: string, from: string) {
  return db(em)
    .selectFrom('user_day_figures')
    .select(['day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
    .where('user_id', '=', userId)
    .where('day', '>=', from)
    .orderBy('day')
    .execute();
}

/** The kept genre counts of a month (its first day). */
export function monthGenreCounts(em: EntityManager, userId: string, month: string) {
  return db(em).selectFrom('user_month_genre').select(['genre', 'watches']).where('user_id', '=', userId).where('month', '=', month).execute();
}

/** Entries after `after` and before `before`: their time, title, its type and genres, and minutes. */
export function entriesBetween(em: EntityManager, userId: string, after: Date, before: Date) {
  return db(em)
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => ['w.watched_at', 'w.title_id', 't.type', 't.genres', eb.cast<number>(entryMinutes, 'integer').as('minutes')])
    .where('w.user_id', '=', userId)
    .where('w.watched_at', '>', after)
    .where('w.watched_at', '<', before)
    .execute();
}

/** Ratings given after `after` and before `before` (their rated_at). */
export function ratingsBetween(em: EntityManager, userId: string, after: Date, before: Date) {
  return db(em).selectFrom('user_rating').select('rated_at').where('user_id', '=', userId).where('rated_at', '>', after).where('rated_at', '<', before).execute();
}

/** The kept genre counts of the months from `fromMonth` (a first day) on, up to `toMonth` when given, summed per genre. */
export function genreCountsFrom(em: EntityManager, userId: string, fromMonth: string, toMonth?: string) {
  return db(em)
    .selectFrom('user_month_genre')
    .select((eb) => ['genre', eb.cast<number>(eb.fn.sum('watches'), 'integer').as('watches')])
    .where('user_id', '=', userId)
    .where('month', '>=', fromMonth)
    .$if(toMonth !== undefined, (q) => q.where('month', '<=', toMonth!))
    .groupBy('genre')
    .execute();
}
