// The statements of the per-day figures and the streak runs (days.ts). The reads' texts are built once
// (compiled-once.ts): every write of figures runs some of them, and only their values change.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryCreator } from 'kysely';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

export type DayRow = { day: string; watches: number; movies: number; episodes: number; minutes: number; ratings: number };

/** The user's day rows among these days. */
export async function dayRows(em: EntityManager, userId: string, days: readonly string[]): Promise<DayRow[]> {
  return (await db(em).executeQuery(dayRowsOnce({ userId, days: [...days] }))).rows;
}

/** One text: the days are one array parameter (compiled-once.ts). */
const dayRowsOnce = compiledOnce(
  (p: { userId: string; days: string[] }) => dayRowsQuery(offline, p.userId, p.days),
  (p, value) => ({ userId: value(p.userId), days: value(p.days) }),
);

/** dayRows' statement (another statement may embed it). */
export function dayRowsQuery(k: QueryCreator<Tables>, userId: string, days: readonly string[]) {
  return k
    .selectFrom('user_day_figures')
    .select(['day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
    .where('user_id', '=', userId)
    .where((eb) => eb('day', '=', eb.fn.any(eb.val(days))));
}

/** The user's day rows in [from, to], oldest first. */
export async function daysBetween(em: EntityManager, userId: string, from: string, to: string): Promise<DayRow[]> {
  return (await db(em).executeQuery(daysBetweenOnce({ userId, from, to }))).rows;
}

type Span = { userId: string; from: string; to: string };
const spanValues = (p: Span, value: <T>(v: T) => T): Span => ({ userId: value(p.userId), from: value(p.from), to: value(p.to) });

/** One text (compiled-once.ts). */
const daysBetweenOnce = compiledOnce(
  ({ userId, from, to }: Span) =>
    offline
      .selectFrom('user_day_figures')
      .select(['day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
      .where('user_id', '=', userId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day'),
  spanValues,
);

/** The days with an entry in [from, to], oldest first. */
export async function activeDaysBetween(em: EntityManager, userId: string, from: string, to: string): Promise<string[]> {
  const { rows } = await db(em).executeQuery(activeDaysBetweenOnce({ userId, from, to }));
  return rows.map((r) => r.day);
}

/** One text (compiled-once.ts). */
const activeDaysBetweenOnce = compiledOnce(
  ({ userId, from, to }: Span) =>
    offline
      .selectFrom('user_day_figures')
      .select('day')
      .where('user_id', '=', userId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .where('watches', '>', 0)
      .orderBy('day'),
  spanValues,
);

/** The runs that touch [from, to]. */
export async function runsAround(em: EntityManager, userId: string, from: string, to: string) {
  return (await db(em).executeQuery(runsAroundOnce({ userId, from, to }))).rows;
}

/** One text (compiled-once.ts). */
const runsAroundOnce = compiledOnce(
  ({ userId, from, to }: Span) =>
    offline.selectFrom('user_streak_run').select(['first_day', 'last_day']).where('user_id', '=', userId).where('last_day', '>=', from).where('first_day', '<=', to),
  spanValues,
);

export async function deleteRuns(tx: EntityManager, userId: string, firstDays: readonly string[]): Promise<void> {
  if (firstDays.length === 0) return;
  await db(tx).executeQuery(deleteRunsOnce({ userId, firstDays: [...firstDays] }));
}

/** One text: the days are one array parameter (compiled-once.ts). */
const deleteRunsOnce = compiledOnce(
  ({ userId, firstDays }: { userId: string; firstDays: string[] }) =>
    offline
      .deleteFrom('user_streak_run')
      .where('user_id', '=', userId)
      .where((eb) => eb('first_day', '=', eb.fn.any(eb.val(firstDays)))),
  (p, value) => ({ userId: value(p.userId), firstDays: value(p.firstDays) }),
);

export async function insertRuns(tx: EntityManager, userId: string, runs: readonly { firstDay: string; lastDay: string; days: number }[]): Promise<void> {
  if (runs.length === 0) return;
  await db(tx)
    .insertInto('user_streak_run')
    .values(runs.map((r) => ({ user_id: userId, first_day: r.firstDay, last_day: r.lastDay, days: r.days })))
    .execute();
}
