// Writing a list's items. Callers hold the list's row lock (access.ts) so positions and the counts,
// recomputed from the items at the end of each write, are exact.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import {
  appendTitles,
  countItems,
  countListItems,
  deleteItems,
  deleteItemsExcept,
  deleteTitleItem,
  insertTitlesAt,
  positionTitles,
  refreshCounts,
  refreshPreview,
  renumberItems,
} from './item-repository.ts';

/** The most items one list holds (a dynamic list's `size` is far below it). */
export const MAX_LIST_ITEMS = 10_000;

export type AddResult = { titleId: string; status: 'added' | 'existing'; id: string };

/**
 * Appends titles not yet in the list, in the given order; a title already there is `existing` (no
 * duplicate, no error). 409 `conflict` when the list would pass MAX_LIST_ITEMS.
 */
export async function addTitles(tx: EntityManager, listId: string, titleIds: readonly string[], addedBy: string | null): Promise<AddResult[]> {
  const unique = [...new Set(titleIds)];
  const { existing, total } = await countItems(tx, listId, unique);
  if (total + unique.length - existing > MAX_LIST_ITEMS) {
    throw new ApiError('conflict', `A list holds at most ${MAX_LIST_ITEMS} items; this one has ${total}`);
  }
  const rows = await appendTitles(tx, listId, unique, addedBy);
  const byTitle = new Map(rows.map((r) => [String(r.title_id), r]));
  if (rows.some((r) => r.inserted)) await refreshCounts(tx, listId);
  return titleIds.map((titleId) => {
    const r = byTitle.get(titleId)!;
    return { titleId, status: r.inserted ? 'added' : 'existing', id: String(r.id) };
  });
}

/** Removes items by id; the ids actually removed. */
export async function removeItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<string[]> {
  const removed = await deleteItems(tx, listId, itemIds);
  if (removed.length) await refreshCounts(tx, listId);
  return removed;
}

/** Removes the item holding a title; its id, or null when the title was not in the list. */
export async function removeTitle(tx: EntityManager, listId: string, titleId: string): Promise<string | null> {
  const removed = await deleteTitleItem(tx, listId, titleId);
  if (removed) await refreshCounts(tx, listId);
  return removed;
}

/**
 * Moves the named items to the front, in the order given; the others follow in their current order.
 * Every id must be an item of this list, named once (400 otherwise).
 */
export async function reorderItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<void> {
  if (new Set(itemIds).size !== itemIds.length) throw invalidRequest('itemIds: an item is named more than once');
  if ((await countListItems(tx, listId, itemIds)) !== itemIds.length) throw notFound('An item named in itemIds');
  await renumberItems(tx, listId, itemIds);
  // The preview shows the first items in the new order.
  await refreshPreview(tx, listId);
}

export type Replaced = { added: string[]; removed: string[] };

/** Makes the items exactly these titles in this order (dynamic and external lists). */
export async function replaceItems(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<Replaced> {
  const unique = [...new Set(titleIds)].slice(0, MAX_LIST_ITEMS);
  const removed = await deleteItemsExcept(tx, listId, unique);
  const added = await insertTitlesAt(tx, listId, unique);
  await positionTitles(tx, listId, unique);
  await refreshCounts(tx, listId);
  return { added, removed };
}
