// The statements of the entries' figures (watches.ts): what each changed entry counts as, and the month
// genre counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
import { entryMinutes } from './minutes.ts';

type ChangeRow = { idx: number; title_id: string; episode_id: string | null; runtime_minutes: number | null };

/**
 * Per change (by its index): its title's type and genres, and its minutes (as logged, else the episode's,
 * else the title's, the rule of every total of watched time).
 */
export function watchFacts(em: EntityManager, changes: readonly { titleId: string; episodeId: string | null; runtimeMinutes: number | null }[]) {
  const rows: ChangeRow[] = changes.map((c, idx) => ({ idx, title_id: c.titleId, episode_id: c.episodeId, runtime_minutes: c.runtimeMinutes }));
  return db(em)
    // Named `w` like an entry, so the minutes are entryMinutes' own expression.
    .selectFrom(recordset<ChangeRow, 'w'>(rows, 'w', 'idx integer, title_id bigint, episode_id bigint, runtime_minutes integer'))
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => ['w.idx', 't.type', 't.genres', eb.cast<number>(entryMinutes, 'integer').as('minutes')])
    .execute();
}

/** Adds to the month genre counts; a count that reaches 0 is removed. */
export async function addMonthGenres(tx: EntityManager, userId: string, rows: readonly { month: string; genre: string; watches: number }[]): Promise<void> {
  if (rows.length === 0) return;
  const k = db(tx);
  await k
    .insertInto('user_month_genre')
    .values(rows.map((r) => ({ user_id: userId, ...r })))
    .onConflict((oc) => oc.columns(['user_id', 'month', 'genre']).doUpdateSet((eb) => ({ watches: eb('user_month_genre.watches', '+', eb.ref('excluded.watches')) })))
    .execute();
  // Only the months touched: the user's other months are not read.
  await k
    .deleteFrom('user_month_genre')
    .where('user_id', '=', userId)
    .where((eb) => eb('month', '=', eb.fn.any(eb.val([...new Set(rows.map((r) => r.month))]))))
    .where('watches', '=', 0)
    .execute();
}
