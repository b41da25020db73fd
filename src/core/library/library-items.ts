// `RatingItem` of the platform OpenAPI document (a rating or favourite item), one shape for three lists of the user's library:
//   ratings     one item per rating (scope title, series, season or episode), id = the rating's id;
//   favourites  one item per favourite title, id = the title state's id, scope title or series;
//   statuses    one item per title with a show status, id = the title state's id (GET /me/show-statuses).
// Each item also carries the title's favourite flag, show status and title-level rating, so the pages
// and the change feed (resources ratings, favourites, show_status) serve the same records.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { libraryPageRows, listItemRows, pageWindow, type ItemFilter, type ItemRow, type LibraryList, type PageFilters } from './items-repository.ts';

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

/** The user's items of one list, narrowed to rating / title-state ids or to one title. */
export async function libraryItems(em: EntityManager, userId: string, list: LibraryList, filter: ItemFilter): Promise<LibraryItem[]> {
  return (await listItemRows(em, userId, list, filter)).map(toItem);
}

/** The user's favourite or status items of these titles (one query whatever their number), by title id. */
export async function titleStateItems(em: EntityManager, userId: string, list: 'favourites' | 'statuses', titleIds: string[]): Promise<Map<string, LibraryItem>> {
  const rows = await listItemRows(em, userId, list, { titleIds });
  return new Map(rows.map((r) => [String(r.title_id), toItem(r)]));
}

export type LibraryPage = { items: LibraryItem[]; total: number; page: number; pageSize: number; hasMore: boolean; counts: Record<Kind, number> };

/**
 * One page of a list, newest first. `counts` counts every kind under the other filters (not `type`),
 * so a client can label its movie / show / anime tabs from any page; `total` counts under all filters.
 */
export async function libraryPage(em: EntityManager, userId: string, list: LibraryList, filters: PageFilters, page: number, pageSize: number): Promise<LibraryPage> {
  // One statement: the counts' row comes even past the end, its item columns null.
  const rows = await libraryPageRows(em, userId, list, filters, pageWindow(page, pageSize));
  const first = rows[0];
  const counts: Record<Kind, number> = { movie: first?.count_movie ?? 0, show: first?.count_show ?? 0, anime: first?.count_anime ?? 0 };
  const total = first?.total ?? 0;
  // A row with an id holds an item: its columns as the page's subquery types them (not null by the join).
  const items = rows.flatMap((r) => (r.id === null ? [] : [toItem(r as ItemRow)]));
  return { items, total, page, pageSize, hasMore: (page - 1) * pageSize + items.length < total, counts };
}
