// What the title detail shows of lists (`userLists` and `featuredLists` of `TitleDetail` in the platform OpenAPI document): the user's lists with
// `containsItemId`, and the operator-featured lists containing the title. Each is a subquery the title
// detail embeds in its one statement (userListsOf / featuredListsOf, repository.ts), and a function that
// runs it alone.
import type { EntityManager } from '@mikro-orm/postgresql';
import { toListSummary, toTitleUserList, type TitleUserList } from './present.ts';
import {
  featuredListsOf,
  selectFeaturedListsForTitle,
  selectUserListsForTitle,
  userListsOf,
} from './repository.ts';

export { featuredListsOf, userListsOf };

type UserListJson = Awaited<ReturnType<typeof selectUserListsForTitle>>['lists'][number];
type FeaturedListJson = Awaited<ReturnType<typeof selectFeaturedListsForTitle>>['lists'][number];

export function toTitleUserLists(rows: UserListJson[]): TitleUserList[] {
  return rows.map((r) => toTitleUserList(r, r.contains_item_id === null ? null : String(r.contains_item_id)));
}

/** Every list the user owns or collaborates on, each saying whether it holds the title. */
export async function userListsForTitle(em: EntityManager, userId: string, titleId: string): Promise<TitleUserList[]> {
  return toTitleUserLists((await selectUserListsForTitle(em, userId, titleId)).lists);
}

/** Featured lists on the wire (free-form objects): the list summary plus `likeCount`. */
export function toFeaturedLists(rows: FeaturedListJson[]): Record<string, unknown>[] {
  return rows.map((r) => ({ ...toListSummary(r), likeCount: r.like_count ?? 0 }));
}

/** Featured public lists that contain the title, most liked first. */
export async function featuredListsForTitle(em: EntityManager, titleId: string): Promise<Record<string, unknown>[]> {
  return toFeaturedLists((await selectFeaturedListsForTitle(em, titleId)).lists);
}
