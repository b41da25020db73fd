// The lock every change of a user's kept figures takes: day rows, weekly challenge totals, streak runs and
// per-title rows are read, recomputed and written under it, so two writers of one user (a history write
// and a rating, say) cannot both compute from the same old row. Taken after the writer's own locks and
// rows (history, title states), held to the end of the transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export async function lockUserFigures(tx: EntityManager, userId: string): Promise<void> {
  await db(tx)
    .selectNoFrom((eb) => eb.fn('pg_advisory_xact_lock', [eb.fn('hashtextextended', [eb.val(`figures:${userId}`), eb.lit(0)])]).as('locked'))
    .execute();
}
