// A list's items as the API shows them (GET /lists/{id}/items, the items of the list detail, and the
// `list_items` change-feed record): title fields from the catalog, `watched` from the viewer's history.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlParams, type Sql } from '../db/sql.ts';

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

export type ItemRow = {
  id: string;
  position: string;
  movie_db_id: number;
  type: 'movie' | 'show';
  is_anime: boolean;
  title: string;
  poster_path: string;
  added_at: Date;
  runtime: number;
  popularity: number;
  release_date: string | null;
  watched: boolean;
};

/**
 * The item columns over `items`, a subquery of list_item rows. Callers pick and limit the rows inside
 * that subquery, so the catalog join and the history probe run for one page only, whatever the
 * planner's statistics say about the list's size.
 */
export function itemSelect(viewerParam: string, items: string): string {
  return `select li.id, li.position, t.movie_db_id, t.type, t.is_anime, t.name as title, t.poster_path, li.added_at,
    coalesce(t.runtime_minutes, t.episode_run_time_minutes, 0) as runtime, t.popularity,
    to_char(t.release_date, 'YYYY-MM-DD"T"00:00:00.000"Z"') as release_date,
    (${viewerParam}::uuid is not null and exists (select 1 from watch_history w where w.user_id = ${viewerParam}::uuid and w.title_id = li.title_id)) as watched
    from (${items}) li join title t on t.id = li.title_id
    order by li.position, li.id`;
}

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
    popularity: r.popularity,
    releaseDate: r.release_date,
    watched: r.watched,
  };
}

/** These items of the list, as `viewerId` sees them, in list order. */
export async function itemsById(em: EntityManager, listId: string, itemIds: readonly string[], viewerId: string | null): Promise<ListItem[]> {
  if (itemIds.length === 0) return [];
  const { params, p } = sqlParams();
  const viewer = p(viewerId);
  const rows = await query<ItemRow>(em, {
    text: itemSelect(viewer, `select * from list_item where list_id = ${p(listId)} and id = any(${p(itemIds)}::bigint[])`),
    params,
  });
  return rows.map(toListItem);
}

/** The statement of one page of the list's items after `after` (position, id), `limit + 1` rows (tells if more follow). */
export function itemPageSql(listId: string, viewerId: string | null, after: [string, string] | null, limit: number): Sql {
  const { params, p } = sqlParams();
  const viewer = p(viewerId);
  const where = [`list_id = ${p(listId)}`];
  if (after) where.push(`(position, id) > (${p(after[0])}::bigint, ${p(after[1])}::bigint)`);
  return { text: itemSelect(viewer, `select * from list_item where ${where.join(' and ')} order by position, id limit ${p(limit + 1)}`), params };
}

export function itemPageRows(em: EntityManager, listId: string, viewerId: string | null, after: [string, string] | null, limit: number): Promise<ItemRow[]> {
  return query<ItemRow>(em, itemPageSql(listId, viewerId, after, limit));
}
