// The user's collection items of some titles (id, title, season, format only): what a bulk write of
// those titles finds already there, or removes, looked up in one statement for the whole batch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { CollectionFormat } from './schemas.ts';

export type ItemOf = { id: number; titleId: string; season: number | null; format: CollectionFormat };

/** The user's items of these titles, by id. */
export async function collectionItemsOf(em: EntityManager, userId: string, titleIds: readonly string[]): Promise<ItemOf[]> {
  if (titleIds.length === 0) return [];
  const rows = await db(em)
    .selectFrom('collection_item as c')
    .select(['c.id', 'c.title_id', 'c.season', 'c.format'])
    .where('c.user_id', '=', userId)
    .where('c.title_id', 'in', [...new Set(titleIds)])
    .orderBy('c.id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), titleId: String(r.title_id), season: r.season, format: r.format }));
}
