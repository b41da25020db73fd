// The statements of the per-day figures and the streak runs (days.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryCreator } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

export type DayRow = { day: string; watches: number; movies: number; episodes: number; minutes: number; ratings: number };

/** The user's day rows among these days. */
export function dayRows(em: EntityManager, userId: string, days: readonly string[]): Promise<DayRow[]> {
  return dayRowsQuery(db(em), userId, days).execute();
}

/** dayRows' statement (another statement may embed it). */
export function dayRowsQuery(k: QueryCreator<Tables>, userId: string, days: readonly string[]) {
  return k
    .selectFrom('user_day_figures')
    .select(['day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
    .where('user_id', '=', userId)
    .where((eb) => eb('day', '=', eb.fn.any(eb.val(days))));
}

/** The user's day rows in [from, to], oldest first. */
export function daysBetween(em: EntityManager, userId: string, from: string, to: string): Promise<DayRow[]> {
  return db(em)
    .selectFrom('user_day_figures')
    .select(['day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
    .where('user_id', '=', userId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .execute();
}

/** The days with an entry in [from, to], oldest first. */
export async function activeDaysBetween(em: EntityManager, userId: string, from: string, to: string): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('user_day_figures')
    .select('day')
    .where('user_id', '=', userId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .where('watches', '>', 0)
    .orderBy('day')
    .execute();
  return rows.map((r) => r.day);
}

/** The runs that touch [from, to]. */
export function runsAround(em: EntityManager, userId: string, from: string, to: string) {
  return db(em)
    .selectFrom('user_streak_run')
    .select(['first_day', 'last_day'])
    .where('user_id', '=', userId)
    .where('last_day', '>=', from)
    .where('first_day', '<=', to)
    .execute();
}

export async function deleteRuns(tx: EntityManager, userId: string, firstDays: readonly string[]): Promise<void> {
  if (firstDays.length === 0) return;
  await db(tx)
    .deleteFrom('user_streak_run')
    .where('user_id', '=', userId)
    .where((eb) => eb('first_day', '=', eb.fn.any(eb.val([...firstDays]))))
    .execute();
}

export async function insertRuns(tx: EntityManager, userId: string, runs: readonly { firstDay: string; lastDay: string; days: number }[]): Promise<void> {
  if (runs.length === 0) return;
  await db(tx)
    .insertInto('user_streak_run')
    .values(runs.map((r) => ({ user_id: userId, first_day: r.firstDay, last_day: r.lastDay, days: r.days })))
    .execute();
}
