// Adding, changing and removing collection items. Each write runs in one transaction and records its
// change (resource `collection`, the item's id, the item as GET /me/collection shows it).
//
// Adding is idempotent: the same (title, format, season) is one item, so adding it again answers the item
// already there (same id); `notes`, when given, replace its notes. Changing an item's format onto another
// item of the same title and season is a 409 `conflict`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitle } from '../catalog/fetch/registry.ts';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import { collectionItemById } from './read.ts';
import { addItem, deleteItem, existingItem, seasonKnown, updateItem } from './repository.ts';
import type { AddCollectionItemInput, CollectionFormat, CollectionItem, UpdateCollectionItemInput } from './schemas.ts';

const UNIQUE_VIOLATION = '23505';

async function written(tx: EntityManager, userId: string, id: number): Promise<CollectionItem> {
  const item = await collectionItemById(tx, userId, id);
  if (!item) throw new Error(`collection item ${id} vanished inside its own transaction`);
  await recordChange(tx, userId, { resource: 'collection', resourceId: item.id, op: 'upsert', data: item });
  return item;
}

export async function addCollectionItem(em: EntityManager, userId: string, input: AddCollectionItemInput): Promise<CollectionItem> {
  // Before the transaction, where a title the catalog lacks may be fetched from the metadata provider
  // (the catalog's titles are never removed, so the one found still stands in the transaction).
  const title = await resolveOrFetchTitle(em, { type: input.type, movieDbId: input.movieDbId });
  if (!title) throw notFound(`${input.type} ${input.movieDbId}`);
  return transaction(em, async (tx) => {
    const season = input.season ?? null;
    if (season !== null) {
      if (title.type !== 'show') throw invalidRequest('season: only a show has seasons');
      if (!(await seasonKnown(tx, title.id, season))) throw notFound(`season ${season} of show ${input.movieDbId}`);
    }
    const item = { titleId: title.id, format: input.format, season };
    // Inserts the item, or updates its notes when they are given and differ: an id only when a row was written.
    const inserted = await addItem(tx, userId, { ...item, notes: input.notes ?? null });
    if (inserted) return written(tx, userId, Number(inserted.id));
    const existing = await existingItem(tx, userId, item);
    const found = existing && (await collectionItemById(tx, userId, Number(existing.id)));
    if (!found) throw new Error('collection item neither inserted nor found');
    return found;
  });
}

/**
 * Adds a copy of a resolved title as it was elsewhere (the import of an export): its notes and when it
 * was added kept. Inside the caller's transaction; `unchanged` when the same copy with the same notes is
 * there already (a second import changes nothing).
 */
export async function addImportedCollectionItem(
  tx: EntityManager,
  userId: string,
  item: { titleId: string; format: CollectionFormat; season: number | null; notes: string; addedAt: Date },
): Promise<'inserted' | 'updated' | 'unchanged'> {
  const existed = await existingItem(tx, userId, item);
  const row = await addItem(tx, userId, item);
  if (!row) return 'unchanged';
  await written(tx, userId, Number(row.id));
  return existed ? 'updated' : 'inserted';
}

export async function updateCollectionItem(em: EntityManager, userId: string, input: UpdateCollectionItemInput): Promise<CollectionItem> {
  try {
    return await transaction(em, async (tx) => {
      const row = await updateItem(tx, userId, input.id, { format: input.format, notes: input.notes });
      if (!row) throw notFound(`collection item ${input.id}`);
      return written(tx, userId, input.id);
    });
  } catch (err) {
    // Two items of one title and season cannot share a format (the database's unique constraint).
    if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) {
      throw new ApiError('conflict', `another item of this title and season is already in format ${input.format}`);
    }
    throw err;
  }
}

export function removeCollectionItem(em: EntityManager, userId: string, id: number): Promise<void> {
  return transaction(em, async (tx) => {
    const row = await deleteItem(tx, userId, id);
    if (!row) throw notFound(`collection item ${id}`);
    await recordChange(tx, userId, { resource: 'collection', resourceId: id, op: 'delete', data: null });
  });
}
