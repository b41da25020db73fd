// The user's lists as the deprecated profile home shows them: list summaries without `description`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { listRows, toProfileHomeList, type ProfileHomeList } from './present.ts';
import { myListIds } from './read.ts';

/** The user's first `limit` lists (owned and collaborating), in GET /me/lists order. */
export async function profileHomeLists(em: EntityManager, userId: string, limit: number): Promise<ProfileHomeList[]> {
  return (await listRows(em, await myListIds(em, userId, null, limit))).map(toProfileHomeList);
}
