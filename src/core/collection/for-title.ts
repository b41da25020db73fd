// What the title detail shows of the collection (spec: `collectionStatus`): whether the user owns the
// title, in which formats (in COLLECTION_FORMATS order), and each item with its season (0 = the whole
// title, as on GET /me/collection). An SQL expression the title detail embeds in its one statement, and a
// function that runs it alone.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { COLLECTION_FORMATS, type CollectionFormat } from './schemas.ts';

export type CollectionStatus = { owned: boolean; formats: string[]; items: { id: number; format: string; season: number }[] };

const formatRank = (f: string) => COLLECTION_FORMATS.indexOf(f as CollectionFormat);

type ItemRow = { id: string | number; format: string; season: number | null };

/**
 * SQL expression: the JSON array of the user's items of the title (`titleId`: a bound parameter or a
 * column of the enclosing statement). The title detail embeds it in its one statement.
 */
export function collectionItemsJson(user: string, titleId: string): string {
  return `(select coalesce(json_agg(json_build_object('id', c.id, 'format', c.format, 'season', c.season)), '[]'::json)
    from collection_item c where c.user_id = ${user} and c.title_id = ${titleId})`;
}

export function toCollectionStatus(rows: ItemRow[]): CollectionStatus {
  const items = rows
    .map((r) => ({ id: Number(r.id), format: r.format, season: r.season ?? 0 }))
    .sort((a, b) => a.season - b.season || formatRank(a.format) - formatRank(b.format) || a.id - b.id);
  const formats = [...new Set(items.map((i) => i.format))].sort((a, b) => formatRank(a) - formatRank(b));
  return { owned: items.length > 0, formats, items };
}

export async function collectionStatusForTitle(em: EntityManager, userId: string, titleId: string): Promise<CollectionStatus> {
  const [row] = await query<{ items: ItemRow[] }>(em, { text: `select ${collectionItemsJson('$1', '$2::bigint')} as items`, params: [userId, titleId] });
  return toCollectionStatus(row!.items);
}
