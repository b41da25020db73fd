// A list's items as the API shows them (GET /lists/{id}/items, the items of the list detail, and the
// `list_items` change-feed record): title fields from the catalog, `watched` from the viewer's history.
// The statements: item-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { selectItemPage, selectItemsById } from './item-repository.ts';

export type ListItem = {
  id: number;
  movieDbId: number;
  type: 'movie' | 'show';
  isAnime: boolean;
  title: string;
  posterPath: string;
  addedAt: string;
  runtime: number;
  popularity: number;
  releaseDate: string | null;
  watched: boolean;
};

export type ItemRow = Awaited<ReturnType<typeof selectItemPage>>[number];

export function toListItem(r: ItemRow): ListItem {
  return {
    id: Number(r.id),
    movieDbId: r.movie_db_id,
    type: r.type,
    isAnime: r.is_anime,
    title: r.title,
    posterPath: r.poster_path,
    addedAt: new Date(r.added_at).toISOString(),
    runtime: r.runtime,
    popularity: Number(r.popularity),
    // A date column comes back as 'YYYY-MM-DD'; the wire has it as a UTC midnight timestamp.
    releaseDate: r.release_date === null ? null : `${r.release_date}T00:00:00.000Z`,
    watched: r.watched,
  };
}

/** These items of the list, as `viewerId` sees them, in list order. */
export async function itemsById(em: EntityManager, listId: string, itemIds: readonly string[], viewerId: string | null): Promise<ListItem[]> {
  if (itemIds.length === 0) return [];
  return (await selectItemsById(em, listId, itemIds, viewerId)).map(toListItem);
}

export function itemPageRows(em: EntityManager, listId: string, viewerId: string | null, after: [string, string] | null, limit: number): Promise<ItemRow[]> {
  return selectItemPage(em, listId, viewerId, after, limit);
}
