// Trakt's search: by text over the catalog's search procedure (movies and shows; the service has no
// people, no searchable lists and no episode search, so those types add nothing), and by id (Trakt's row
// ids, or the outside ids, which go through the living catalog: a title the catalog lacks is fetched
// from the metadata provider when one is configured, as every other path that names titles by id does).
import { resolveOrFetchTitles } from '../../core/catalog/fetch/registry.ts';
import type { TitleRef } from '../../core/catalog/resolve.ts';
import { isRowId } from '../../core/catalog/title-keys.ts';
import { invalidRequest, notFound } from '../../core/errors.ts';
import { episodeOf, episodeRowById, titleRowsById, titleRowsByKeys, type TitleRow } from '../../core/titles/rows-repository.ts';
import { traktEpisode, traktTitle, wantsFull } from '../media-present.ts';
import { pageOf, paginationHeaders } from '../paging.ts';
import type { TraktRoute } from '../route.ts';

/** How many results a text search holds in all: the catalog search procedure's largest answer. */
const SEARCH_MAX = 50;
/** The score of an id lookup's match (Trakt's scores are relevance; an id matches exactly). */
const EXACT_SCORE = 1000;

const SEARCH_TYPES = new Set(['movie', 'show', 'episode', 'person', 'list']);
const ID_TYPES = new Set(['trakt', 'imdb', 'tmdb', 'tvdb']);

/** The types a `type` text names (comma-separated); 404 for a type Trakt does not have. */
function typesOf(text: string): Set<string> {
  const types = new Set(text.split(',').map((t) => t.trim()));
  for (const t of types) if (!SEARCH_TYPES.has(t)) throw notFound(`Search type ${t}`);
  return types;
}

const titleResult = (row: TitleRow, score: number, full: boolean) => ({ type: row.type, score, [row.type]: traktTitle(row, full) });

export const searchRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/search/:type',
    summary: 'Text search of movies and shows (type: movie, show or both comma-separated; person, list and episode find nothing here)',
    tag: 'Search',
    auth: 'none',
    paged: true,
    statuses: [400],
    async handle({ procedures, em, params, query }) {
      const types = typesOf(params.type!);
      const q = (query.query ?? '').trim();
      if (!q) throw invalidRequest('query is required');
      const page = pageOf(query);
      const full = wantsFull(query);
      const served = (['movie', 'show'] as const).filter((t) => types.has(t));
      if (served.length === 0) return { body: [], headers: paginationHeaders(page, 0) };
      // `fields` is accepted and not applied: the catalog's search reads titles and original titles.
      const { items } = await procedures.public.catalog.search({ q, ...(served.length === 1 ? { type: served[0] } : {}), limit: SEARCH_MAX });
      const slice = items.slice(page.offset, page.offset + page.limit);
      const rows = await titleRowsByKeys(em, slice.map((i) => ({ type: i.type, movieDbId: i.movieDbId })), full);
      const byKey = new Map(rows.map((r) => [`${r.type}:${r.movie_db_id}`, r]));
      // The procedure ranks by relevance without giving its score: the score here falls with the rank.
      const body = slice.flatMap((i, k) => {
        const row = byKey.get(`${i.type}:${i.movieDbId}`);
        return row ? [titleResult(row, items.length - page.offset - k, full)] : [];
      });
      return { body, headers: paginationHeaders(page, items.length) };
    },
  },
  {
    method: 'GET',
    path: '/search/:id_type/:id',
    summary: 'Look a title (or, by Trakt id, an episode) up by id: trakt, imdb, tmdb or tvdb; type narrows it',
    tag: 'Search',
    auth: 'none',
    paged: true,
    statuses: [400],
    async handle({ em, params, query }) {
      const idType = params.id_type!;
      if (!ID_TYPES.has(idType)) throw notFound(`Id type ${idType}`);
      const id = params.id!;
      const types = query.type ? typesOf(query.type) : SEARCH_TYPES;
      const titleTypes = (['movie', 'show'] as const).filter((t) => types.has(t));
      const page = pageOf(query);
      const full = wantsFull(query);
      const results: unknown[] = [];
      if (idType === 'trakt') {
        if (isRowId(id)) {
          // Row ids are unique across movies and shows; episodes have their own.
          const rows = titleTypes.length ? await titleRowsById(em, [id], full) : [];
          for (const row of rows) if (titleTypes.includes(row.type)) results.push(titleResult(row, EXACT_SCORE, full));
          if (types.has('episode')) {
            const row = await episodeRowById(em, id, full);
            if (row) results.push({ type: 'episode', score: EXACT_SCORE, episode: traktEpisode(episodeOf(row), full), show: traktTitle(row, full) });
          }
        }
      } else {
        const refs = titleTypes.flatMap((type): TitleRef[] => {
          if (idType === 'imdb') return /^tt\d{1,12}$/.test(id) ? [{ type, filmDbId: id }] : [];
          const n = /^\d{1,9}$/.test(id) ? Number(id) : 0;
          if (n < 1) return [];
          if (idType === 'tmdb') return [{ type, movieDbId: n }];
          return type === 'show' ? [{ type, tvDbId: n }] : [];
        });
        const found = (await resolveOrFetchTitles(em, refs)).filter((t) => t !== null);
        const rows = found.length ? await titleRowsById(em, found.map((t) => t.id), full) : [];
        // In the order of the types asked (movie, then show).
        for (const type of titleTypes) for (const row of rows) if (row.type === type) results.push(titleResult(row, EXACT_SCORE, full));
      }
      return { body: results.slice(page.offset, page.offset + page.limit), headers: paginationHeaders(page, results.length) };
    },
  },
];
