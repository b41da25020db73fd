// The user's lists as the deprecated profile home shows them: list summaries without `description`.
// (Filled in by the lists module.)
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ListPreviewPoster } from './for-title.ts';

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

export async function profileHomeLists(_em: EntityManager, _userId: string, _limit: number): Promise<ProfileHomeList[]> {
  return [];
}
