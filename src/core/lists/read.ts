// Reading lists: the detail of one list (with a page of its items), pages of its items, and the
// user's own lists (owned and collaborating) for GET /me/lists. Keyset cursors bound to the other
// parameters (src/core/paging/cursor.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { decodeCursor, encodeCursor, isBigintText } from '../paging/cursor.ts';
import { listAccess } from './access.ts';
import { itemPageRows, toListItem, type ListItem } from './item-records.ts';
import { iso, LIST_COLUMNS, LIST_FROM, listRows, toListSummary, type ListRow, type ListSummary } from './present.ts';

const isItemPosition = (p: unknown): p is [string, string] => Array.isArray(p) && p.length === 2 && p.every(isBigintText);
const isListPosition = (p: unknown): p is string => isBigintText(p) && !p.startsWith('-');

export type ItemsPage = { items: ListItem[]; nextCursor?: string };

/** A page of a list's items, after checking the viewer may see the list. */
export async function listItemsPage(em: EntityManager, listId: number, viewerId: string, opts: { cursor?: string | undefined; limit: number }): Promise<ItemsPage> {
  const list = await listAccess(em, listId, viewerId);
  return itemsPageOf(em, list.id, viewerId, opts);
}

async function itemsPageOf(em: EntityManager, listId: string, viewerId: string, opts: { cursor?: string | undefined; limit: number }): Promise<ItemsPage> {
  // Bound to the list and the page size: a cursor of one list (or size) is refused on another.
  const params = { list: listId, limit: opts.limit };
  const after = opts.cursor ? decodeCursor(opts.cursor, params, isItemPosition) : null;
  const rows = await itemPageRows(em, listId, viewerId, after, opts.limit);
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return {
    items: page.map(toListItem),
    ...(rows.length > opts.limit && last ? { nextCursor: encodeCursor([String(last.position), String(last.id)], params) } : {}),
  };
}

type DetailRow = ListRow & {
  dynamic_filters: Record<string, unknown> | null;
  sync_state: 'pending' | 'syncing' | 'synced' | 'failed' | null;
  last_full_synced_at: Date | null;
  last_sync_error: string | null;
  like_count: number;
  is_liked: boolean;
  collaborators: { userId: string; username: string; avatarUrl: string | null }[];
};

export async function listDetail(em: EntityManager, listId: number, viewerId: string, opts: { itemsCursor?: string | undefined; itemsLimit: number }) {
  const list = await listAccess(em, listId, viewerId);
  const [r] = await query<DetailRow>(em, {
    text: `select ${LIST_COLUMNS}, l.dynamic_filters, l.sync_state, l.last_full_synced_at, l.last_sync_error,
        (select count(*)::int from list_like k where k.list_id = l.id) as like_count,
        exists (select 1 from list_like k where k.list_id = l.id and k.user_id = $2) as is_liked,
        coalesce((select json_agg(json_build_object('userId', m.user_id, 'username', mu.username, 'avatarUrl', mu.avatar_url) order by m.accepted_at, m.user_id)
          from list_member m join app_user mu on mu.id = m.user_id where m.list_id = l.id and m.accepted_at is not null), '[]') as collaborators
      from ${LIST_FROM} where l.id = $1`,
    params: [list.id, viewerId],
  });
  const row = r!;
  const page = await itemsPageOf(em, list.id, viewerId, { cursor: opts.itemsCursor, limit: opts.itemsLimit });
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    isPublic: row.is_public,
    isWatchlist: row.is_watchlist,
    isDynamicList: row.kind === 'dynamic',
    isOwner: list.role === 'owner',
    isCollaborator: list.role === 'collaborator',
    isCollaborative: row.is_collaborative,
    isFeatured: row.is_featured,
    isLiked: row.is_liked,
    externalSource: row.external_source,
    externalUrl: row.external_url,
    itemCount: row.item_count,
    likeCount: row.like_count,
    commentCount: 0,
    createdAt: iso(row.created_at)!,
    lastSyncedAt: iso(row.last_synced_at),
    dynamicListLastFullSyncedAt: iso(row.last_full_synced_at),
    ownerId: row.owner_id,
    ownerUsername: row.owner_username,
    collaborators: row.collaborators,
    items: page.items,
    ...(page.nextCursor ? { itemsNextCursor: page.nextCursor } : {}),
    dynamicListFilters: row.dynamic_filters,
    lastSyncError: row.last_sync_error,
    dynamicListSyncState: row.sync_state,
  };
}

/** Ids of the user's lists (owned, or collaborating after accepting) after `after`, by id. */
export async function myListIds(em: EntityManager, userId: string, after: string | null, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(em, {
    text: `select id from (
        (select id from list where owner_id = $1 and id > $2 order by id limit $3)
        union all
        (select list_id from list_member where user_id = $1 and accepted_at is not null and list_id > $2 order by list_id limit $3)
      ) x order by id limit $3`,
    params: [userId, after ?? '0', limit],
  });
  return rows.map((r) => String(r.id));
}

export type MyListsPage = { items: ListSummary[]; nextCursor?: string };

/** GET /me/lists: the user's lists, oldest first (the watchlist where it was made). */
export async function myLists(em: EntityManager, userId: string, opts: { cursor?: string | undefined; limit: number }): Promise<MyListsPage> {
  const params = { limit: opts.limit };
  const after = opts.cursor ? decodeCursor(opts.cursor, params, isListPosition) : null;
  const ids = await myListIds(em, userId, after, opts.limit + 1);
  const pageIds = ids.slice(0, opts.limit);
  const rows = await listRows(em, pageIds);
  return {
    items: rows.map(toListSummary),
    ...(ids.length > opts.limit ? { nextCursor: encodeCursor(pageIds.at(-1)!, params) } : {}),
  };
}
