// The per-year title figures (user_year_title): what a change of entries adds to the rows of the years
// and titles it touched is written with the other figures (write-repository.ts); here, the removal of
// the rows it left at 0.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type YearTitleDelta = { year: number; title_id: string; watches: number; minutes: number };

/** Removes the user's rows at 0 entries among these years and titles. */
export async function removeEmptyYearTitles(tx: EntityManager, userId: string, rows: readonly YearTitleDelta[]): Promise<void> {
  await db(tx)
    .deleteFrom('user_year_title')
    .where('user_id', '=', userId)
    .where((eb) => eb('year', '=', eb.fn.any(eb.val([...new Set(rows.map((r) => r.year))]))))
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...new Set(rows.map((r) => r.title_id))]))))
    .where('watches', '=', 0)
    .execute();
}
