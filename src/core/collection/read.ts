// GET /me/collection: the user's collection, newest first, in keyset pages by item id. A cursor is bound
// to the type filter and the limit it was made with.
import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor } from '../paging/cursor.ts';
import { toCollectionItem } from './present.ts';
import { collectionPageRows, itemRowById } from './repository.ts';
import type { CollectionItem, CollectionPage, CollectionQuery } from './schemas.ts';

const isPosition = (p: unknown): p is number => typeof p === 'number' && Number.isSafeInteger(p) && p >= 1;

export async function collectionPage(em: EntityManager, userId: string, q: CollectionQuery): Promise<CollectionPage> {
  const bound = { type: q.type, limit: q.limit };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  // One more than the limit: whether a next page exists.
  const rows = await collectionPageRows(em, userId, q.type, after, q.limit + 1);
  const items = rows.slice(0, q.limit).map(toCollectionItem);
  const last = items.at(-1);
  return rows.length > q.limit && last ? { items, nextCursor: encodeCursor(last.id, bound) } : { items };
}

/** One item of the user's, or null (someone else's item is null too). */
export async function collectionItemById(em: EntityManager, userId: string, id: number): Promise<CollectionItem | null> {
  const row = await itemRowById(em, userId, id);
  return row ? toCollectionItem(row) : null;
}
