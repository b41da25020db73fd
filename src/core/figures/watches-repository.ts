// The statements of the entries' figures (watches.ts): what each changed entry counts as, and the
// removal of month genre counts a change left at 0.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
import { entryMinutes } from './minutes.ts';

type ChangeRow = { idx: number; title_id: string; episode_id: string | null; runtime_minutes: number | null };

/**
 * Per change (by its index): its title's type, anime flag and genres, and its minutes (as logged, else the episode's,
 * else the title's, the rule of every total of watched time).
 */
export function watchFacts(em: EntityManager, changes: readonly { titleId: string; episodeId: string | null; runtimeMinutes: number | null }[]) {
  const rows: ChangeRow[] = changes.map((c, idx) => ({ idx, title_id: c.titleId, episode_id: c.episodeId, runtime_minutes: c.runtimeMinutes }));
  return db(em)
    // Named `w` like an entry, so the minutes are entryMinutes' own expression.
    .selectFrom(recordset<ChangeRow, 'w'>(rows, 'w', 'idx integer, title_id bigint, episode_id bigint, runtime_minutes integer'))
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => ['w.idx', 't.type', 't.is_anime', 't.genres', eb.cast<number>(entryMinutes, 'integer').as('minutes')])
    .execute();
}

/** Removes the user's month genre counts at 0 among these months (only the months touched: the others are not read). */
export async function removeEmptyMonthGenres(tx: EntityManager, userId: string, months: readonly string[]): Promise<void> {
  await db(tx)
    .deleteFrom('user_month_genre')
    .where('user_id', '=', userId)
    .where((eb) => eb('month', '=', eb.fn.any(eb.val([...months]))))
    .where('watches', '=', 0)
    .execute();
}
