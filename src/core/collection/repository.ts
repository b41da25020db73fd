// The collection's statements: items as the page, the write answers and the change feed show them,
// the writes, and the user's items of one title (the title detail).
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Expression, type QueryCreator } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import type { CollectionFormat } from './schemas.ts';

type Kind = Tables['title']['category'];

/** collection_item `c` with its title `t`: the columns of a collection item (present.ts). */
function itemRows(k: QueryCreator<Tables>) {
  return k
    .selectFrom('collection_item as c')
    .innerJoin('title as t', 't.id', 'c.title_id')
    .select(['c.id', 't.movie_db_id', 't.type', 't.is_anime', 'c.season', 't.name', 't.year', 't.poster_path', 'c.format', 'c.notes', 'c.added_at']);
}

/** One page, newest first: items after `afterId` (null: the first page), `rows` of them at most. */
export function collectionPageQuery(k: QueryCreator<Tables>, userId: string, type: Kind | undefined, afterId: number | null, rows: number) {
  let q = itemRows(k).where('c.user_id', '=', userId);
  if (afterId !== null) q = q.where('c.id', '<', String(afterId));
  if (type) q = q.where('t.category', '=', type);
  return q.orderBy('c.id', 'desc').limit(rows);
}

export function collectionPageRows(em: EntityManager, userId: string, type: Kind | undefined, afterId: number | null, rows: number) {
  return collectionPageQuery(db(em), userId, type, afterId, rows).execute();
}

export function itemRowById(em: EntityManager, userId: string, id: number) {
  return itemRows(db(em)).where('c.id', '=', String(id)).where('c.user_id', '=', userId).executeTakeFirst();
}

export type ItemRow = Awaited<ReturnType<typeof collectionPageRows>>[number];

// ---- writes

export async function seasonKnown(tx: EntityManager, titleId: string, season: number): Promise<boolean> {
  const row = await db(tx)
    .selectFrom('season')
    .select((eb) => eb.lit(1).as('known'))
    .where('title_id', '=', titleId)
    .where('season_number', '=', season)
    .executeTakeFirst();
  return row !== undefined;
}

export type NewItem = { titleId: string; format: CollectionFormat; season: number | null; notes: string | null; addedAt?: Date | undefined };

/**
 * Inserts the item, or (on the same title, format and season) updates its notes when they are given and
 * differ; the id only when a row was written.
 */
export function addItem(tx: EntityManager, userId: string, item: NewItem) {
  const notes = item.notes;
  return db(tx)
    .insertInto('collection_item')
    .values({ user_id: userId, title_id: item.titleId, format: item.format, season: item.season, notes: notes ?? '', ...(item.addedAt ? { added_at: item.addedAt } : {}) })
    .onConflict((oc) =>
      oc
        .constraint('collection_item_copy')
        .doUpdateSet((eb) => ({ notes: eb.ref('excluded.notes'), updated_at: eb.fn<Date>('now') }))
        // Without notes the conflicting row is left as it is (locked, as any conflicting row is).
        .where((eb) => (notes === null ? eb.lit(false) : eb('collection_item.notes', '<>', notes))),
    )
    .returning('id')
    .executeTakeFirst();
}

/** The id of the user's item of the title in this format and season. */
export function existingItem(tx: EntityManager, userId: string, item: Omit<NewItem, 'notes'>) {
  return db(tx)
    .selectFrom('collection_item')
    .select('id')
    .where('user_id', '=', userId)
    .where('title_id', '=', item.titleId)
    .where('format', '=', item.format)
    .where('season', 'is not distinct from', item.season)
    .executeTakeFirst();
}

/** Changes the format and notes given; undefined when the user has no such item. */
export function updateItem(tx: EntityManager, userId: string, id: number, change: { format?: CollectionFormat | undefined; notes?: string | undefined }) {
  return db(tx)
    .updateTable('collection_item')
    .set((eb) => ({
      ...(change.format !== undefined ? { format: change.format } : {}),
      ...(change.notes !== undefined ? { notes: change.notes } : {}),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('id', '=', String(id))
    .where('user_id', '=', userId)
    .returning('id')
    .executeTakeFirst();
}

export function deleteItem(tx: EntityManager, userId: string, id: number) {
  return db(tx).deleteFrom('collection_item').where('id', '=', String(id)).where('user_id', '=', userId).returning('id').executeTakeFirst();
}

// ---- the title detail

/**
 * The JSON array of the user's items of the title (`titleId`: a value, or a column of the enclosing
 * statement): `[{ id, format, season }]`, ids as JSON numbers.
 */
export function collectionItemsOf(userId: string, titleId: Expression<string>) {
  const eb = expressionBuilder<Tables, never>();
  return jsonArrayFrom(
    eb.selectFrom('collection_item as c').select(['c.id', 'c.format', 'c.season']).where('c.user_id', '=', userId).where('c.title_id', '=', titleId),
  ).$castTo<{ id: number; format: CollectionFormat; season: number | null }[]>();
}

export async function collectionItemsOfTitle(em: EntityManager, userId: string, titleId: string) {
  const row = await db(em)
    .selectNoFrom((eb) => collectionItemsOf(userId, eb.val(titleId)).as('items'))
    .executeTakeFirstOrThrow();
  return row.items;
}
