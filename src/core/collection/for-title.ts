// What the title detail shows of the collection (`collectionStatus` of `TitleDetail` in the platform OpenAPI document): whether the user owns the
// title, in which formats (in COLLECTION_FORMATS order), and each item with its season (0 = the whole
// title, as on GET /me/collection). The title detail embeds the items' JSON array (collectionItemsOf,
// repository.ts) in its one statement; collectionStatusForTitle reads it alone.
import type { EntityManager } from '@mikro-orm/postgresql';
import { collectionItemsOfTitle } from './repository.ts';
import { COLLECTION_FORMATS, type CollectionFormat } from './schemas.ts';

export type CollectionStatus = { owned: boolean; formats: string[]; items: { id: number; format: string; season: number }[] };

const formatRank = (f: string) => COLLECTION_FORMATS.indexOf(f as CollectionFormat);

/** An item of the JSON array collectionItemsOf builds. */
type TitleItem = { id: string | number; format: string; season: number | null };

export function toCollectionStatus(rows: TitleItem[]): CollectionStatus {
  const items = rows
    .map((r) => ({ id: Number(r.id), format: r.format, season: r.season ?? 0 }))
    .sort((a, b) => a.season - b.season || formatRank(a.format) - formatRank(b.format) || a.id - b.id);
  const formats = [...new Set(items.map((i) => i.format))].sort((a, b) => formatRank(a) - formatRank(b));
  return { owned: items.length > 0, formats, items };
}

export async function collectionStatusForTitle(em: EntityManager, userId: string, titleId: string): Promise<CollectionStatus> {
  return toCollectionStatus(await collectionItemsOfTitle(em, userId, titleId));
}
