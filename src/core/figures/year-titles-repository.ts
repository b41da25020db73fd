// The statement of the per-year title figures (user_year_title): what a change of entries adds to the
// rows of the years and titles it touched.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type YearTitleDelta = { year: number; title_id: string; watches: number; minutes: number };

/** Adds to the rows; a row whose entries reach 0 is removed (only among the years and titles touched). */
export async function addYearTitles(tx: EntityManager, userId: string, rows: readonly YearTitleDelta[]): Promise<void> {
  if (rows.length === 0) return;
  const k = db(tx);
  await k
    .insertInto('user_year_title')
    .values(rows.map((r) => ({ user_id: userId, ...r })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'year', 'title_id']).doUpdateSet((eb) => ({
        watches: eb('user_year_title.watches', '+', eb.ref('excluded.watches')),
        // Never below zero: minutes fall short only after the catalog changed a runtime under them (as a
        // day's do); stats:rebuild repairs them.
        minutes: eb.fn('greatest', [eb.lit(0), eb('user_year_title.minutes', '+', eb.ref('excluded.minutes'))]),
      })),
    )
    .execute();
  await k
    .deleteFrom('user_year_title')
    .where('user_id', '=', userId)
    .where((eb) => eb('year', '=', eb.fn.any(eb.val([...new Set(rows.map((r) => r.year))]))))
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...new Set(rows.map((r) => r.title_id))]))))
    .where('watches', '=', 0)
    .execute();
}
