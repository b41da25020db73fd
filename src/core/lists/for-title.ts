// What the title detail shows of lists (spec: Title detail response): the user's lists with
// `containsItemId`, and the operator-featured lists containing the title. (Filled in by the lists module.)
import type { EntityManager } from '@mikro-orm/postgresql';

export type ListPreviewPoster = { posterPath: string; movieDbId: number; type: 'movie' | 'show' };

/** TitleUserList (spec), exactly. */
export type TitleUserList = {
  id: number;
  name: string;
  description: string | null;
  isPublic: boolean;
  isWatchlist: boolean;
  isDynamicList: boolean;
  isCollaborative: boolean;
  isFeatured: boolean;
  lastSyncedAt: string | null;
  ownerUsername: string | null;
  itemCount: number;
  itemBreakdown: { movies: number; shows: number; anime: number };
  createdAt: string;
  previewPosters: ListPreviewPoster[];
  /** The list item holding this title, or null when the list does not contain it. */
  containsItemId: number | null;
};

/** Every list the user owns or collaborates on, each saying whether it holds the title. */
export async function userListsForTitle(_em: EntityManager, _userId: string, _titleId: string): Promise<TitleUserList[]> {
  return [];
}

/** Featured public lists that contain the title (free-form objects on the wire). */
export async function featuredListsForTitle(_em: EntityManager, _titleId: string): Promise<Record<string, unknown>[]> {
  return [];
}
