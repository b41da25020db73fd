// What the title detail shows of lists (spec: Title detail response): the user's lists with
// `containsItemId`, and the operator-featured lists containing the title.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { LIST_COLUMNS, LIST_FROM, toListSummary, toTitleUserList, type ListRow } from './present.ts';

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

/** At most this many of the user's lists (the title page shows them as choices; oldest first). */
export const TITLE_USER_LISTS_MAX = 200;
/** At most this many featured lists per title (most liked first). */
export const TITLE_FEATURED_MAX = 10;

/** Every list the user owns or collaborates on, each saying whether it holds the title. */
export async function userListsForTitle(em: EntityManager, userId: string, titleId: string): Promise<TitleUserList[]> {
  const rows = await query<ListRow & { contains_item_id: string | null }>(em, {
    text: `select ${LIST_COLUMNS}, (select li.id from list_item li where li.list_id = l.id and li.title_id = $2) as contains_item_id
      from ${LIST_FROM}
      where l.owner_id = $1 or l.id in (select list_id from list_member where user_id = $1 and accepted_at is not null)
      order by l.id limit ${TITLE_USER_LISTS_MAX}`,
    params: [userId, titleId],
  });
  return rows.map((r) => toTitleUserList(r, r.contains_item_id === null ? null : String(r.contains_item_id)));
}

/**
 * Featured public lists that contain the title (free-form objects on the wire): the list summary plus
 * `likeCount`, most liked first.
 */
export async function featuredListsForTitle(em: EntityManager, titleId: string): Promise<Record<string, unknown>[]> {
  const rows = await query<ListRow & { like_count: number }>(em, {
    text: `select ${LIST_COLUMNS}, (select count(*)::int from list_like k where k.list_id = l.id) as like_count
      from ${LIST_FROM}
      where l.is_featured and l.is_public and exists (select 1 from list_item li where li.list_id = l.id and li.title_id = $1)
      order by like_count desc, l.id limit ${TITLE_FEATURED_MAX}`,
    params: [titleId],
  });
  return rows.map((r) => ({ ...toListSummary(r), likeCount: r.like_count }));
}
