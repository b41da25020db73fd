// One list row -> the list shapes of the spec: List (create and update responses), list summary
// (GET /me/lists, and the `lists` change-feed record), TitleUserList (title detail) and the profile
// home's summary without `description`. All come from the one SELECT below, so they always agree.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { query } from '../db/sql.ts';
import type { ListPreviewPoster, TitleUserList } from './for-title.ts';
import type { listShape, listSummary } from './schemas.ts';
import type { ProfileHomeList } from './summaries.ts';

/**
 * Columns of `list l` joined with its owner `u`, for every list shape. The preview posters (the first
 * items in list order that have a poster, at most 4) are stored on the list: the migration's
 * list_preview_posters() defines them, refreshCounts (items.ts) stores them, and a trigger follows the
 * catalog's poster changes.
 */
export const LIST_COLUMNS = `l.id, l.name, l.description, l.is_public, l.is_watchlist, l.kind, l.is_collaborative, l.is_featured,
  l.external_source, l.external_url, l.last_synced_at, l.item_count, l.movie_count, l.show_count, l.anime_count, l.created_at,
  l.owner_id, u.username as owner_username, l.preview_posters`;

export const LIST_FROM = `list l join app_user u on u.id = l.owner_id`;

export type ListRow = {
  id: string;
  name: string;
  description: string;
  is_public: boolean;
  is_watchlist: boolean;
  kind: 'plain' | 'dynamic' | 'external';
  is_collaborative: boolean;
  is_featured: boolean;
  external_source: string | null;
  external_url: string | null;
  last_synced_at: Date | null;
  item_count: number;
  movie_count: number;
  show_count: number;
  anime_count: number;
  created_at: Date;
  owner_id: string;
  owner_username: string;
  preview_posters: ListPreviewPoster[];
};

export type ListShape = z.infer<typeof listShape>;
export type ListSummary = z.infer<typeof listSummary>;

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
  const rows = await query<ListRow>(em, {
    text: `select ${LIST_COLUMNS} from ${LIST_FROM} join unnest($1::bigint[]) with ordinality as w(id, ord) on w.id = l.id order by w.ord`,
    params: [ids.map(String)],
  });
  return rows;
}

export async function listRow(em: EntityManager, id: string | number): Promise<ListRow | null> {
  const [row] = await listRows(em, [id]);
  return row ?? null;
}
