// What the title detail shows of the collection (spec: `collectionStatus`). (Filled in by the collection
// module.)
import type { EntityManager } from '@mikro-orm/postgresql';

export type CollectionStatus = { owned: boolean; formats: string[]; items: { id: number; format: string; season: number }[] };

export async function collectionStatusForTitle(_em: EntityManager, _userId: string, _titleId: string): Promise<CollectionStatus> {
  return { owned: false, formats: [], items: [] };
}
