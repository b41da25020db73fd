// The user's lists as the deprecated profile home shows them: list summaries without `description`.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ListPreviewPoster } from './for-title.ts';
import { listRows, toProfileHomeList } from './present.ts';
import { myListIds } from './read.ts';

export type ProfileHomeList = {
  id: number;
  name: string;
  isPublic: boolean;
  isWatchlist: boolean;
  isDynamicList: boolean;
  externalSource: string | null;
  isCollaborative: boolean;
  ownerUsername: string | null;
  itemCount: number;
  previewPosters: ListPreviewPoster[];
};

/** The user's first `limit` lists (owned and collaborating), in GET /me/lists order. */
export async function profileHomeLists(em: EntityManager, userId: string, limit: number): Promise<ProfileHomeList[]> {
  return (await listRows(em, await myListIds(em, userId, null, limit))).map(toProfileHomeList);
}
