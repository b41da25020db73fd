// What the title detail shows of lists (spec: Title detail response): the user's lists with
// `containsItemId`, and the operator-featured lists containing the title. Each is an SQL expression the
// title detail embeds in its one statement (core/titles/queries.ts), and a function that runs it alone.
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

type UserListRow = ListRow & { contains_item_id: string | number | null };
type FeaturedRow = ListRow & { like_count: number };

/**
 * SQL expression: the JSON array of every list the user owns or collaborates on, each with the item
 * holding the title (`titleId`: a bound parameter or a column of the enclosing statement), oldest
 * first. The title detail embeds it in its one statement; toTitleUserLists reads it.
 */
export function userListsJson(user: string, titleId: string): string {
  return `(select coalesce(json_agg(row_to_json(r) order by r.id), '[]'::json) from (
    select ${LIST_COLUMNS}, (select li.id from list_item li where li.list_id = l.id and li.title_id = ${titleId}) as contains_item_id
    from ${LIST_FROM}
    where l.owner_id = ${user} or l.id in (select list_id from list_member where user_id = ${user} and accepted_at is not null)
    order by l.id limit ${TITLE_USER_LISTS_MAX}) r)`;
}

export function toTitleUserLists(rows: UserListRow[]): TitleUserList[] {
  return rows.map((r) => toTitleUserList(r, r.contains_item_id === null ? null : String(r.contains_item_id)));
}

/** Every list the user owns or collaborates on, each saying whether it holds the title. */
export async function userListsForTitle(em: EntityManager, userId: string, titleId: string): Promise<TitleUserList[]> {
  const [row] = await query<{ lists: UserListRow[] }>(em, { text: `select ${userListsJson('$1', '$2::bigint')} as lists`, params: [userId, titleId] });
  return toTitleUserLists(row!.lists);
}

/**
 * SQL expression: the JSON array of the featured public lists containing the title, most liked first
 * (`titleId` as in userListsJson). toFeaturedLists reads it.
 */
export function featuredListsJson(titleId: string): string {
  return `(select coalesce(json_agg(row_to_json(r) order by r.like_count desc, r.id), '[]'::json) from (
    select ${LIST_COLUMNS}, (select count(*)::int from list_like k where k.list_id = l.id) as like_count
    from ${LIST_FROM}
    where l.is_featured and l.is_public and exists (select 1 from list_item li where li.list_id = l.id and li.title_id = ${titleId})
    order by like_count desc, l.id limit ${TITLE_FEATURED_MAX}) r)`;
}

/** Featured lists on the wire (free-form objects): the list summary plus `likeCount`. */
export function toFeaturedLists(rows: FeaturedRow[]): Record<string, unknown>[] {
  return rows.map((r) => ({ ...toListSummary(r), likeCount: r.like_count }));
}

/** Featured public lists that contain the title, most liked first. */
export async function featuredListsForTitle(em: EntityManager, titleId: string): Promise<Record<string, unknown>[]> {
  const [row] = await query<{ lists: FeaturedRow[] }>(em, { text: `select ${featuredListsJson('$1::bigint')} as lists`, params: [titleId] });
  return toFeaturedLists(row!.lists);
}
