// One list row -> the list shapes of the platform OpenAPI document: List (create and update responses), list summary
// (GET /me/lists, and the `lists` change-feed record), TitleUserList (title detail) and the profile
// home's summary without `description`. All come from the same columns (repository.ts), so they
// always agree. The title detail's lists come as JSON (ids numbers, timestamps text): read the same way.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import type { ListPreviewPoster } from '../schema/lists.ts';
import { selectListRows, type selectUserListsForTitle } from './repository.ts';
import type { listShape, listSummary } from './schemas.ts';

/**
 * A list row as the statements give it (repository.ts): columns of `list` and the owner's username; or
 * as the title detail's JSON has the same columns (timestamps as text).
 */
export type ListRow = Awaited<ReturnType<typeof selectListRows>>[number] | ListJson;
type ListJson = Omit<Awaited<ReturnType<typeof selectUserListsForTitle>>['lists'][number], 'contains_item_id'>;

export type ListShape = z.infer<typeof listShape>;
export type ListSummary = z.infer<typeof listSummary>;
/** The deprecated profile home's list summary (summaries.ts). */
export type ProfileHomeList = Omit<ListSummary, 'description'>;

/** One entry of the title detail's `userLists` (the platform OpenAPI document), exactly. */
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

export const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/** The fields List and list summary share. */
function common(r: ListRow) {
  return {
    id: Number(r.id),
    name: r.name,
    description: r.description,
    isPublic: r.is_public,
    isWatchlist: r.is_watchlist,
    isDynamicList: r.kind === 'dynamic',
    isCollaborative: r.is_collaborative,
    ownerUsername: r.owner_username,
    itemCount: r.item_count,
    previewPosters: r.preview_posters,
  };
}

export function toListShape(r: ListRow): ListShape {
  return {
    ...common(r),
    lastSyncedAt: iso(r.last_synced_at),
    isFeatured: r.is_featured,
    itemBreakdown: { movies: r.movie_count, shows: r.show_count, anime: r.anime_count },
    createdAt: iso(r.created_at)!,
  };
}

export function toListSummary(r: ListRow): ListSummary {
  return { ...common(r), externalSource: r.external_source };
}

export function toProfileHomeList(r: ListRow): ProfileHomeList {
  const { description: _description, ...rest } = toListSummary(r);
  return rest;
}

export function toTitleUserList(r: ListRow, containsItemId: string | null): TitleUserList {
  const { id, name, description, isPublic, isWatchlist, isDynamicList, isCollaborative, isFeatured, lastSyncedAt, ownerUsername, itemCount, itemBreakdown, createdAt, previewPosters } =
    toListShape(r);
  return {
    id, name, description, isPublic, isWatchlist, isDynamicList, isCollaborative, isFeatured, lastSyncedAt, ownerUsername, itemCount, itemBreakdown, createdAt, previewPosters,
    containsItemId: containsItemId === null ? null : Number(containsItemId),
  };
}

/** The rows of these lists, in the order of `ids` (missing ones left out). */
export async function listRows(em: EntityManager, ids: readonly (string | number)[]): Promise<ListRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectListRows(em, ids.map(String));
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  return ids.flatMap((id) => byId.get(String(id)) ?? []);
}

export async function listRow(em: EntityManager, id: string | number): Promise<ListRow | null> {
  const [row] = await listRows(em, [id]);
  return row ?? null;
}
