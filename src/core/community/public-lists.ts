// Lists as the public API shows them: the list summary of GET /me/lists plus the list's like count.
import type { EntityManager } from '@mikro-orm/postgresql';
import { listRows, toListSummary } from '../lists/present.ts';
import { likeCounts } from './repository.ts';
import type { publicList } from './schemas.ts';
import type { z } from 'zod';

export type PublicList = z.infer<typeof publicList>;

/** These lists, in the order of `ids`, each with its like count. */
export async function publicLists(em: EntityManager, ids: readonly string[]): Promise<PublicList[]> {
  if (ids.length === 0) return [];
  const rows = await listRows(em, ids);
  const likes = await likeCounts(em, ids.map(String));
  const likeCount = new Map(likes.map((l) => [String(l.list_id), l.n]));
  return rows.map((r) => ({ ...toListSummary(r), likeCount: likeCount.get(String(r.id)) ?? 0 }));
}
