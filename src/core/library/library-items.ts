// The spec's "Rating / favourite item", one shape for three lists of the user's library:
//   ratings     one item per rating (scope title, series, season or episode), id = the rating's id;
//   favourites  one item per favourite title, id = the title state's id, scope title or series;
//   statuses    one item per title with a show status, id = the title state's id (GET /me/show-statuses).
// Each item also carries the title's favourite flag, show status and title-level rating, so the pages
// and the change feed (resources ratings, favourites, show_status) serve the same records.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { query, sqlParams, type Sql } from '../db/sql.ts';

export const SHOW_STATUSES = ['planned', 'watching', 'paused', 'completed', 'dropped'] as const;
export type ShowStatus = (typeof SHOW_STATUSES)[number];
export const RATING_SCOPES = ['title', 'series', 'season', 'episode'] as const;
export const KINDS = ['movie', 'show', 'anime'] as const;
export type Kind = (typeof KINDS)[number];

export const libraryItem = z
  .object({
    id: z.number().int().min(1).describe('The rating\'s id in ratings; the title state\'s id in favourites and show statuses.'),
    movieDbId: z.number().int().min(1),
    kind: z.enum(KINDS).describe('The title\'s category. Its routable type follows from `scope`: `title` is a movie; `series`, `season`, `episode` a show.'),
    mediaSource: z.literal('movie_db'),
    sourceId: z.number().int().min(1).describe('The id in `mediaSource`: the movie database id.'),
    title: z.string(),
    posterPath: z.string().describe('"" when the title has no poster.'),
    backdropPath: z.string().describe('"" when the title has no backdrop.'),
    year: z.number().int(),
    scope: z.enum(RATING_SCOPES),
    season: z.number().int().nullable().describe('Set for scopes season and episode.'),
    episode: z.number().int().nullable().describe('Set for scope episode.'),
    stillPath: z.string().nullable().describe('The episode\'s still ("" when it has none) for scope episode; null otherwise.'),
    episodeTitle: z.string().nullable().describe('Set for scope episode.'),
    rating: z.number().int().min(1).max(10).nullable().describe('1 to 10. In favourites and show statuses: the title-level rating, or null.'),
    isFavourite: z.boolean(),
    showStatus: z.enum(SHOW_STATUSES).nullable(),
    ratedAt: z.iso.datetime().nullable(),
    favouritedAt: z.iso.datetime().nullable(),
    updatedAt: z.iso.datetime().describe('When this rating (ratings) or the title\'s favourite or status (the other lists) last changed.'),
  })
  .strict()
  .meta({ id: 'RatingItem' });

export type LibraryItem = z.infer<typeof libraryItem>;
export type LibraryList = 'ratings' | 'favourites' | 'statuses';

type ItemRow = {
  id: string;
  title_id: string;
  movie_db_id: number;
  kind: Kind;
  name: string;
  poster_path: string;
  backdrop_path: string;
  year: number;
  scope: (typeof RATING_SCOPES)[number];
  season_number: number | null;
  episode_number: number | null;
  still_path: string | null;
  episode_title: string | null;
  rating: number | null;
  is_favourite: boolean;
  show_status: ShowStatus | null;
  rated_at: Date | null;
  favourited_at: Date | null;
  updated_at: Date;
};

const TITLE_COLUMNS = `t.movie_db_id, t.category as kind, t.name, t.poster_path, t.backdrop_path, t.year`;
const TITLE_LEVEL_SCOPE = `case t.type when 'movie' then 'title' else 'series' end`;

const SELECT_RATINGS = `select r.id, r.title_id, ${TITLE_COLUMNS}, r.scope, r.season_number, r.episode_number,
  case when r.scope = 'episode' then coalesce(e.still_path, '') end as still_path,
  case when r.scope = 'episode' then coalesce(e.name, '') end as episode_title,
  r.rating, coalesce(st.is_favourite, false) as is_favourite, st.show_status, r.rated_at, st.favourited_at, r.updated_at
from user_rating r join title t on t.id = r.title_id
left join episode e on r.scope = 'episode' and e.title_id = r.title_id and e.season_number = r.season_number and e.episode_number = r.episode_number
left join user_title_state st on st.user_id = r.user_id and st.title_id = r.title_id
where r.user_id = $1`;

const SELECT_TITLE_STATES = `select st.id, st.title_id, ${TITLE_COLUMNS}, ${TITLE_LEVEL_SCOPE} as scope,
  null::integer as season_number, null::integer as episode_number, null::text as still_path, null::text as episode_title,
  r.rating, st.is_favourite, st.show_status, r.rated_at, st.favourited_at, st.updated_at
from user_title_state st join title t on t.id = st.title_id
left join user_rating r on r.user_id = st.user_id and r.title_id = st.title_id and r.scope = ${TITLE_LEVEL_SCOPE}
where st.user_id = $1`;

// Per list: its select, the rows it holds, its scope and id columns, its order, and the least a count
// by kind needs to join (a page joins episodes and title states for its few rows only).
const COUNT_RATINGS = `select t.category as kind from user_rating r join title t on t.id = r.title_id where r.user_id = $1`;
const COUNT_TITLE_STATES = `select t.category as kind from user_title_state st join title t on t.id = st.title_id where st.user_id = $1`;

const LISTS: Record<LibraryList, { select: string; count: string; only: string; scope: string; id: string; order: string }> = {
  ratings: { select: SELECT_RATINGS, count: COUNT_RATINGS, only: 'true', scope: 'r.scope', id: 'r.id', order: 'r.updated_at desc, r.id desc' },
  favourites: { select: SELECT_TITLE_STATES, count: COUNT_TITLE_STATES, only: 'st.is_favourite', scope: TITLE_LEVEL_SCOPE, id: 'st.id', order: 'st.favourited_at desc, st.id desc' },
  statuses: { select: SELECT_TITLE_STATES, count: COUNT_TITLE_STATES, only: 'st.show_status is not null', scope: TITLE_LEVEL_SCOPE, id: 'st.id', order: 'st.show_status_at desc, st.id desc' },
};

function toItem(r: ItemRow): LibraryItem {
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
  return {
    id: Number(r.id),
    movieDbId: r.movie_db_id,
    kind: r.kind,
    mediaSource: 'movie_db',
    sourceId: r.movie_db_id,
    title: r.name,
    posterPath: r.poster_path,
    backdropPath: r.backdrop_path,
    year: r.year,
    scope: r.scope,
    season: r.season_number,
    episode: r.episode_number,
    stillPath: r.still_path,
    episodeTitle: r.episode_title,
    rating: r.rating,
    isFavourite: r.is_favourite,
    showStatus: r.show_status,
    ratedAt: iso(r.rated_at),
    favouritedAt: r.is_favourite ? iso(r.favourited_at) : null,
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

export type ItemFilter = { ids?: string[]; titleId?: string };

/** The user's items of one list, narrowed to rating / title-state ids or to one title. */
export async function libraryItems(em: EntityManager, userId: string, list: LibraryList, filter: ItemFilter): Promise<LibraryItem[]> {
  const l = LISTS[list];
  const idColumn = l.id;
  const q = sqlParams();
  q.p(userId);
  const where = [l.only];
  if (filter.ids) where.push(`${idColumn} = any(${q.p(filter.ids)}::bigint[])`);
  if (filter.titleId) where.push(`t.id = ${q.p(filter.titleId)}`);
  const rows = await query<ItemRow>(em, { text: `${l.select} and ${where.join(' and ')} order by ${idColumn}`, params: q.params });
  return rows.map(toItem);
}

export type PageFilters = { type?: Kind | undefined; scope?: (typeof RATING_SCOPES)[number] | undefined; status?: ShowStatus | undefined };

export type LibraryPage = { items: LibraryItem[]; total: number; page: number; pageSize: number; hasMore: boolean; counts: Record<Kind, number> };

/**
 * One statement for a page: the counts by kind under every filter but `type`, and the page's rows
 * (none past the end: the counts' row still comes, its item columns null).
 */
export function libraryPageSql(userId: string, list: LibraryList, filters: PageFilters, page: number, pageSize: number): Sql {
  const l = LISTS[list];
  const q = sqlParams();
  q.p(userId);
  const where = [l.only];
  if (filters.scope) where.push(`${l.scope} = ${q.p(filters.scope)}`);
  if (filters.status) where.push(`st.show_status = ${q.p(filters.status)}`);
  const filter = where.join(' and ');
  const typeClause = filters.type ? ` and t.category = ${q.p(filters.type)}` : '';
  return {
    text: `with counts as (
  select coalesce(json_object_agg(kind, n), '{}') as counts from (select kind, count(*)::int as n from (${l.count} and ${filter}) x group by kind) k
)
select p.*, c.counts from counts c
left join lateral (${l.select} and ${filter}${typeClause} order by ${l.order} limit ${q.p(pageSize)} offset ${q.p((page - 1) * pageSize)}) p on true`,
    params: q.params,
    // One text per list and combination of filters (a few dozen): a named statement (db/prepared.ts).
    prepare: true,
  };
}

/**
 * One page of a list, newest first. `counts` counts every kind under the other filters (not `type`),
 * so a client can label its movie / show / anime tabs from any page; `total` counts under all filters.
 */
export async function libraryPage(em: EntityManager, userId: string, list: LibraryList, filters: PageFilters, page: number, pageSize: number): Promise<LibraryPage> {
  const rows = await query<ItemRow & { counts: Partial<Record<Kind, number>> }>(em, libraryPageSql(userId, list, filters, page, pageSize));
  const counts: Record<Kind, number> = { movie: 0, show: 0, anime: 0, ...rows[0]?.counts };
  const total = filters.type ? counts[filters.type] : counts.movie + counts.show + counts.anime;
  const items = rows.filter((r) => r.id !== null).map(toItem);
  return { items, total, page, pageSize, hasMore: (page - 1) * pageSize + items.length < total, counts };
}
