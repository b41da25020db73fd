// GET /me/collection: the user's collection, newest first, in keyset pages by item id. A cursor is bound
// to the type filter and the limit it was made with.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlParams, type Sql } from '../db/sql.ts';
import { decodeCursor, encodeCursor } from '../paging/cursor.ts';
import { ITEM_COLUMNS, toCollectionItem, type ItemRow } from './present.ts';
import type { CollectionItem, CollectionPage, CollectionQuery } from './schemas.ts';

const isPosition = (p: unknown): p is number => typeof p === 'number' && Number.isSafeInteger(p) && p >= 1;

/** One page's statement: items after `afterId` (null: the first page), one more than the limit. */
export function collectionPageSql(userId: string, q: Pick<CollectionQuery, 'type' | 'limit'>, afterId: number | null): Sql {
  const { params, p } = sqlParams();
  const where = [`c.user_id = ${p(userId)}`];
  if (afterId !== null) where.push(`c.id < ${p(afterId)}`);
  if (q.type) where.push(`t.category = ${p(q.type)}`);
  return {
    text: `select ${ITEM_COLUMNS} from collection_item c join title t on t.id = c.title_id
      where ${where.join(' and ')} order by c.id desc limit ${p(q.limit + 1)}`,
    params,
  };
}

export async function collectionPage(em: EntityManager, userId: string, q: CollectionQuery): Promise<CollectionPage> {
  const bound = { type: q.type, limit: q.limit };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  const rows = await query<ItemRow>(em, collectionPageSql(userId, q, after));
  const items = rows.slice(0, q.limit).map(toCollectionItem);
  const last = items.at(-1);
  return rows.length > q.limit && last ? { items, nextCursor: encodeCursor(last.id, bound) } : { items };
}

/** One item of the user's, or null (someone else's item is null too). */
export async function collectionItemById(em: EntityManager, userId: string, id: number): Promise<CollectionItem | null> {
  const [row] = await query<ItemRow>(em, {
    text: `select ${ITEM_COLUMNS} from collection_item c join title t on t.id = c.title_id where c.id = $1 and c.user_id = $2`,
    params: [id, userId],
  });
  return row ? toCollectionItem(row) : null;
}
