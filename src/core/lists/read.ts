// Reading lists: the detail of one list (with a page of its items), pages of its items, and the
// user's own lists (owned and collaborating) for GET /me/lists. Keyset cursors bound to the other
// parameters (src/core/paging/cursor.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor, isBigintText } from '../paging/cursor.ts';
import { listAccess } from './access.ts';
import { itemPageRows, toListItem, type ListItem } from './item-records.ts';
import { iso, listRows, toListSummary, type ListSummary } from './present.ts';
import { selectListDetail, selectMyListIds } from './repository.ts';

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

export async function listDetail(em: EntityManager, listId: number, viewerId: string, opts: { itemsCursor?: string | undefined; itemsLimit: number }) {
  const list = await listAccess(em, listId, viewerId);
  const row = await selectListDetail(em, list.id, viewerId, list.insider);
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
    likeCount: row.like_count ?? 0,
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
  const rows = await selectMyListIds(em, userId, after ?? '0', limit);
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
