// Editing and removing single history entries of the acting user. Another user's entry is not found,
// exactly like an id that does not exist. Each write takes the user's history lock (as logWatches does)
// and records its change in the same transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { applyWatchFigures, type WatchRowChange } from '../figures/watches.ts';
import { lockUserHistory } from './history-write.ts';
import { historyItemsByIds } from './history-items.ts';
import { deleteEntry, entryById, setWatchedAt } from './history-repository.ts';

type EntryFacts = { title_id: string; episode_id: string | null; watched_at: Date | string; runtime_minutes: number | null };
const asChange = (e: EntryFacts, sign: 1 | -1): WatchRowChange => ({ titleId: String(e.title_id), episodeId: e.episode_id === null ? null : String(e.episode_id), watchedAt: e.watched_at, runtimeMinutes: e.runtime_minutes, sign });

/** Moves an entry to another time. Moving it near another watch of the same item does not merge them. */
export function changeWatchedAt(em: EntityManager, userId: string, id: number, watchedAt: Date): Promise<{ id: number; watchedAt: string }> {
  return transaction(em, async (tx) => {
    await lockUserHistory(tx, userId);
    const was = await entryById(tx, userId, id);
    const is = was && (await setWatchedAt(tx, userId, id, watchedAt));
    if (!was || !is) throw notFound('History entry');
    await applyWatchFigures(tx, userId, [asChange(was, -1), asChange(is, 1)]);
    const [item] = await historyItemsByIds(tx, userId, [String(id)]);
    await recordChange(tx, userId, { resource: 'history', resourceId: id, op: 'upsert', data: item! });
    return { id, watchedAt: item!.watchedAt };
  });
}

/** Removes an entry. Show statuses are left as they are (the user may have watched it elsewhere). */
export function deleteWatch(em: EntityManager, userId: string, id: number): Promise<void> {
  return transaction(em, async (tx) => {
    await lockUserHistory(tx, userId);
    const removed = await deleteEntry(tx, userId, id);
    if (!removed) throw notFound('History entry');
    await applyWatchFigures(tx, userId, [asChange(removed, -1)]);
    await recordChange(tx, userId, { resource: 'history', resourceId: id, op: 'delete', data: null });
  });
}
