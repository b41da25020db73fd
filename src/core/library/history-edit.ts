// Editing and removing single history entries of the acting user. Another user's entry is not found,
// exactly like an id that does not exist. Each write takes the user's history lock (as logWatches does)
// and records its change in the same transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { lockUserHistory } from './history-write.ts';
import { historyItemsByIds } from './history-items.ts';
import { deleteEntry, setWatchedAt } from './history-repository.ts';

/** Moves an entry to another time. Moving it near another watch of the same item does not merge them. */
export function changeWatchedAt(em: EntityManager, userId: string, id: number, watchedAt: Date): Promise<{ id: number; watchedAt: string }> {
  return transaction(em, async (tx) => {
    await lockUserHistory(tx, userId);
    if (!(await setWatchedAt(tx, userId, id, watchedAt))) throw notFound('History entry');
    const [item] = await historyItemsByIds(tx, userId, [String(id)]);
    await recordChange(tx, userId, { resource: 'history', resourceId: id, op: 'upsert', data: item! });
    return { id, watchedAt: item!.watchedAt };
  });
}

/** Removes an entry. Show statuses are left as they are (the user may have watched it elsewhere). */
export function deleteWatch(em: EntityManager, userId: string, id: number): Promise<void> {
  return transaction(em, async (tx) => {
    await lockUserHistory(tx, userId);
    if (!(await deleteEntry(tx, userId, id))) throw notFound('History entry');
    await recordChange(tx, userId, { resource: 'history', resourceId: id, op: 'delete', data: null });
  });
}
