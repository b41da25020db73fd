// Adding, changing and removing collection items. Each write runs in one transaction and records its
// change (resource `collection`, the item's id, the item as GET /me/collection shows it).
//
// Adding is idempotent: the same (title, format, season) is one item, so adding it again answers the item
// already there (same id); `notes`, when given, replace its notes. Changing an item's format onto another
// item of the same title and season is a 409 `conflict`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveTitle } from '../catalog/resolve.ts';
import { recordChange } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import { collectionItemById } from './read.ts';
import type { AddCollectionItemInput, CollectionItem, UpdateCollectionItemInput } from './schemas.ts';

const UNIQUE_VIOLATION = '23505';

// Inserts the item, or (on the same title, format and season) updates its notes when they are given and
// differ; returns the id only when a row was written.
const ADD = `
insert into collection_item (user_id, title_id, format, season, notes) values ($1, $2, $3, $4, coalesce($5::text, ''))
on conflict on constraint collection_item_copy do update set notes = excluded.notes, updated_at = now()
  where $5::text is not null and collection_item.notes <> $5::text
returning id`;

const EXISTING = `select id from collection_item
  where user_id = $1 and title_id = $2 and format = $3 and season is not distinct from $4::integer`;

async function written(tx: EntityManager, userId: string, id: number): Promise<CollectionItem> {
  const item = await collectionItemById(tx, userId, id);
  if (!item) throw new Error(`collection item ${id} vanished inside its own transaction`);
  await recordChange(tx, userId, { resource: 'collection', resourceId: item.id, op: 'upsert', data: item });
  return item;
}

export function addCollectionItem(em: EntityManager, userId: string, input: AddCollectionItemInput): Promise<CollectionItem> {
  return transaction(em, async (tx) => {
    const title = await resolveTitle(tx, { type: input.type, movieDbId: input.movieDbId });
    if (!title) throw notFound(`${input.type} ${input.movieDbId}`);
    const season = input.season ?? null;
    if (season !== null) {
      if (title.type !== 'show') throw invalidRequest('season: only a show has seasons');
      const [known] = await query(tx, { text: `select 1 from season where title_id = $1 and season_number = $2`, params: [title.id, season] });
      if (!known) throw notFound(`season ${season} of show ${input.movieDbId}`);
    }
    const [inserted] = await query<{ id: string }>(tx, { text: ADD, params: [userId, title.id, input.format, season, input.notes ?? null] });
    if (inserted) return written(tx, userId, Number(inserted.id));
    const [existing] = await query<{ id: string }>(tx, { text: EXISTING, params: [userId, title.id, input.format, season] });
    const item = existing && (await collectionItemById(tx, userId, Number(existing.id)));
    if (!item) throw new Error('collection item neither inserted nor found');
    return item;
  });
}

export async function updateCollectionItem(em: EntityManager, userId: string, input: UpdateCollectionItemInput): Promise<CollectionItem> {
  try {
    return await transaction(em, async (tx) => {
      const [row] = await query<{ id: string }>(tx, {
        text: `update collection_item set format = coalesce($3, format), notes = coalesce($4, notes), updated_at = now()
          where id = $1 and user_id = $2 returning id`,
        params: [input.id, userId, input.format ?? null, input.notes ?? null],
      });
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
    const [row] = await query(tx, { text: `delete from collection_item where id = $1 and user_id = $2 returning id`, params: [id, userId] });
    if (!row) throw notFound(`collection item ${id}`);
    await recordChange(tx, userId, { resource: 'collection', resourceId: id, op: 'delete', data: null });
  });
}
