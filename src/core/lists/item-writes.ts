// The API's item writes: owner and collaborators add, remove and reorder items of plain lists (the
// watchlist included); dynamic and external lists answer 409 (access.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitles } from '../catalog/fetch/registry.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { itemWritableList } from './access.ts';
import { recordListWrite } from './changes.ts';
import { itemsById, type ListItem } from './item-records.ts';
import { addTitles, removeItems, reorderItems } from './items.ts';

export type TitleKey = { type: 'movie' | 'show'; movieDbId: number };
export type AddItemResult = TitleKey & { status: 'added' | 'existing' | 'not_found'; item: ListItem | null };

export async function addListItems(em: EntityManager, userId: string, listId: number, titles: TitleKey[]): Promise<AddItemResult[]> {
  // Before the transaction, where titles the catalog lacks may be fetched from the metadata provider
  // (the catalog's titles are never removed, so those found still stand in the transaction).
  const resolved = await resolveOrFetchTitles(em, titles.map((t) => ({ type: t.type, movieDbId: t.movieDbId })));
  return transaction(em, async (tx) => {
    const list = await itemWritableList(tx, listId, userId);
    const found = resolved.flatMap((r) => (r ? [r.id] : []));
    const added = await addTitles(tx, list.id, found, userId);
    const byTitle = new Map(added.map((a) => [a.titleId, a]));
    const read = await itemsById(tx, list.id, added.map((a) => a.id), userId);
    const items = new Map(read.map((i) => [String(i.id), i]));
    const newIds = [...new Set(added.filter((a) => a.status === 'added').map((a) => a.id))];
    if (newIds.length) {
      // The writer's own records are of the items just read for the answer.
      const fresh = new Set(newIds);
      await recordListWrite(tx, list.id, { upsertedItems: newIds, itemsSeen: { userId, items: read.filter((i) => fresh.has(String(i.id))) } });
    }
    const seen = new Set<string>();
    return titles.map((t, i) => {
      const r = resolved[i];
      if (!r) return { ...t, status: 'not_found', item: null };
      const a = byTitle.get(r.id)!;
      // A title named twice in one call is added once: the second mention is `existing`.
      const status = a.status === 'added' && !seen.has(a.id) ? 'added' : 'existing';
      seen.add(a.id);
      return { ...t, status, item: items.get(a.id) ?? null };
    });
  });
}

export async function removeListItem(em: EntityManager, userId: string, listId: number, itemId: number): Promise<void> {
  await transaction(em, async (tx) => {
    const list = await itemWritableList(tx, listId, userId);
    const removed = await removeItems(tx, list.id, [String(itemId)]);
    if (!removed.length) throw notFound(`Item ${itemId} of list ${listId}`);
    await recordListWrite(tx, list.id, { deletedItems: removed });
  });
}

export async function reorderListItems(em: EntityManager, userId: string, listId: number, itemIds: number[]): Promise<void> {
  await transaction(em, async (tx) => {
    const list = await itemWritableList(tx, listId, userId);
    await reorderItems(tx, list.id, itemIds.map(String));
    // Positions are not part of an item's record; the summary's preview posters may have changed.
    await recordListWrite(tx, list.id);
  });
}
