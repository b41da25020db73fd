// The statements of the entries' figures (watches.ts): what each changed entry counts as (with the day
// rows of the weeks it touches), and the removal of month genre counts a change left at 0.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { recordset } from '../db/recordset.ts';
import { dayRowsQuery, type DayRow } from './days-repository.ts';
import { entryMinutes } from './minutes.ts';

type ChangeRow = { idx: number; title_id: string; episode_id: string | null; runtime_minutes: number | null };

type ChangeInput = { titleId: string; episodeId: string | null; runtimeMinutes: number | null };

/**
 * Per change (by its index): its title's type, anime flag and genres, and its minutes (as logged, else the
 * episode's, else the title's, the rule of every total of watched time); and, in the same statement, the
 * user's day rows among `days` (repeated on every row: the days of the weeks the change touches).
 */
export async function watchFactsAndDays(em: EntityManager, userId: string, changes: readonly ChangeInput[], days: readonly string[]) {
  const rows: ChangeRow[] = changes.map((c, idx) => ({ idx, title_id: c.titleId, episode_id: c.episodeId, runtime_minutes: c.runtimeMinutes }));
  const facts = (await db(em).executeQuery(factsOnce({ userId, rows: JSON.stringify(rows), days: [...days] }))).rows;
  return { facts, days: (facts[0]?.days ?? []) as DayRow[] };
}

/** Its text built once (compiled-once.ts): every part of it travels as a parameter. */
const factsOnce = compiledOnce(
  (p: { userId: string; rows: string; days: string[] }) =>
    offline
      // Named `w` like an entry, so the minutes are entryMinutes' own expression.
      .selectFrom(recordset<ChangeRow, 'w'>(p.rows, 'w', 'idx integer, title_id bigint, episode_id bigint, runtime_minutes integer'))
      .innerJoin('title as t', 't.id', 'w.title_id')
      .leftJoin('episode as e', 'e.id', 'w.episode_id')
      .select((eb) => ['w.idx', 't.type', 't.is_anime', 't.genres', eb.cast<number>(entryMinutes, 'integer').as('minutes'), jsonArrayFrom(dayRowsQuery(offline, p.userId, p.days)).as('days')]),
  (p, value) => ({ userId: value(p.userId), rows: value(p.rows), days: value(p.days) }),
);

/** Removes the user's month genre counts at 0 among these months (only the months touched: the others are not read). */
export async function removeEmptyMonthGenres(tx: EntityManager, userId: string, months: readonly string[]): Promise<void> {
  await db(tx)
    .deleteFrom('user_month_genre')
    .where('user_id', '=', userId)
    .where((eb) => eb('month', '=', eb.fn.any(eb.val([...months]))))
    .where('watches', '=', 0)
    .execute();
}
