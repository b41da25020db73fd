// The change-feed records of lists. A list is part of the data of every user whose GET /me/lists shows
// it (owner and accepted collaborators): each of them gets the records.
// - `lists`: resourceId the list id; data the list summary (the GET /me/lists item); a delete (data null)
//   when the list is deleted or leaves that user's lists (left, removed). A deleted list's items get no
//   records of their own: a client drops them with the list.
// - `list_items`: resourceId the item id; data the item as GET /lists/{id}/items shows it to that user,
//   plus `listId`; a delete when the item is removed. A user who accepts an invitation gets records of
//   every item already there. `watched` is as of the write (history changes come as `history`).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges, type Change } from '../changes/record.ts';
import { selectItemIds } from './item-repository.ts';
import { itemsById, type ListItem } from './item-records.ts';
import { selectListAudience } from './member-repository.ts';
import { listRow, toListSummary } from './present.ts';

/** The users whose lists include this one: the owner and accepted collaborators. */
export function listAudience(tx: EntityManager, listId: string): Promise<string[]> {
  return selectListAudience(tx, listId);
}

export type ListWrite = {
  upsertedItems?: readonly string[];
  deletedItems?: readonly string[];
  /** Only these users (default: the whole audience). */
  audience?: readonly string[];
  /** The upserted items as one user sees them, when the writer has read them already (not read again). */
  itemsSeen?: { userId: string; items: ListItem[] };
};

/** Records the list's current summary (and the item changes named) for every user in its audience. */
export async function recordListWrite(tx: EntityManager, listId: string, write: ListWrite = {}): Promise<void> {
  const row = await listRow(tx, listId);
  if (!row) return;
  const summary = toListSummary(row);
  for (const userId of write.audience ?? (await listAudience(tx, listId))) {
    const items = write.itemsSeen?.userId === userId ? write.itemsSeen.items : await itemsById(tx, listId, write.upsertedItems ?? [], userId);
    const changes: Change[] = [
      { resource: 'lists', resourceId: listId, op: 'upsert', data: summary },
      ...items.map((item): Change => ({ resource: 'list_items', resourceId: item.id, op: 'upsert', data: { listId: summary.id, ...item } })),
      ...(write.deletedItems ?? []).map((id): Change => ({ resource: 'list_items', resourceId: id, op: 'delete', data: null })),
    ];
    await recordChanges(tx, userId, changes);
  }
}

/** The list left these users' lists (deleted, or they left or were removed). */
export async function recordListGone(tx: EntityManager, listId: string, userIds: readonly string[]): Promise<void> {
  for (const userId of userIds) await recordChanges(tx, userId, [{ resource: 'lists', resourceId: listId, op: 'delete', data: null }]);
}

/** A user who just joined the list's audience (accepted an invitation) gets the list and all its items. */
export async function recordListJoined(tx: EntityManager, listId: string, userId: string): Promise<void> {
  await recordListWrite(tx, listId, { upsertedItems: await selectItemIds(tx, listId), audience: [userId] });
}
