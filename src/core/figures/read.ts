// Reads of the kept figures that are more than a row: shows completed today, and the streak runs. Each
// reads bounded rows (the user's completed shows through a partial index, one or two runs).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** Shows the user has completed as of today (UTC, the database's clock): every aired regular episode watched. */
export async function showsCompleted(em: EntityManager, userId: string): Promise<number> {
  const row = await db(em)
    .selectFrom('user_title_figures')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('user_id', '=', userId)
    .where((eb) => {
      const today = eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), eb.fn('now')]), 'date');
      return eb.and([eb('completed_from', '<=', today), eb.or([eb('completed_until', 'is', null), eb('completed_until', '>', today)])]);
    })
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The longest run of consecutive UTC days with an entry, ever (0 without entries). */
export async function longestStreak(em: EntityManager, userId: string): Promise<number> {
  const row = await db(em).selectFrom('user_streak_run').select('days').where('user_id', '=', userId).orderBy('days', 'desc').limit(1).executeTakeFirst();
  return row?.days ?? 0;
}

/** The run holding `day`, or else the latest run before it (null without one). */
export function runAtOrBefore(em: EntityManager, userId: string, day: string) {
  return db(em)
    .selectFrom('user_streak_run')
    .select(['first_day', 'last_day'])
    .where('user_id', '=', userId)
    .where('first_day', '<=', day)
    .orderBy('first_day', 'desc')
    .limit(1)
    .executeTakeFirst();
}
