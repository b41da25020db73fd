// Trakt's watchlist read (GET /sync/watchlist/{type?}/{sort?}, /users/{id}/watchlist/{type?}/{sort?}):
// the watchlist procedure's items in list order (Trakt's `rank`), each page's titles looked up in one
// batch. The procedure pages by cursor, so page N reads the pages before it (at most the watchlist's
// size, which lists cap), and a type filter reads the whole watchlist to filter it; the item count is
// the list's kept `itemCount` when no type is filtered. Items are always in rank order, as on Trakt;
// X-Sort-By and X-Sort-How repeat the sort asked for (default rank, asc) for the client to apply.
import { notFound } from '../core/errors.ts';
import { pageTitles, titleField } from './library-present.ts';
import { asksForPage, MAX_LIMIT, pageOf, paginationHeaders } from './paging.ts';
import type { TraktAnswer, TraktCall } from './route.ts';

const TYPES: Record<string, readonly ('movie' | 'show')[]> = { movies: ['movie'], shows: ['show'], 'movie,show': ['movie', 'show'], all: ['movie', 'show'] };
const SORTS = ['rank', 'added', 'title', 'released', 'runtime', 'popularity', 'percentage', 'votes', 'my_rating', 'random', 'watched', 'collected'];

type Item = { id: number; movieDbId: number; type: 'movie' | 'show'; addedAt: string; rank: number };

export async function watchlistAnswer(call: TraktCall, type: string | undefined, sort: string | undefined, sortHow: string | undefined): Promise<TraktAnswer> {
  const types = TYPES[type ?? 'all'];
  if (!types) throw notFound(`Watchlist of "${type}"`);
  if (sort !== undefined && !SORTS.includes(sort)) throw notFound(`Watchlist sort "${sort}"`);
  if (sortHow !== undefined && sortHow !== 'asc' && sortHow !== 'desc') throw notFound(`Watchlist sort direction "${sortHow}"`);
  const paged = asksForPage(call.query);
  const page = pageOf(call.query);
  const filtered = types.length === 1;
  // Read up to the page's end (everything when filtering by type or answering every item).
  const upTo = paged && !filtered ? page.offset + page.limit : Infinity;
  const items: Item[] = [];
  let itemCount: number;
  let cursor: string | undefined;
  do {
    const list = await call.procedures.platform.lists.watchlist({ itemsLimit: MAX_LIMIT, ...(cursor ? { itemsCursor: cursor } : {}) });
    itemCount = list.itemCount;
    for (const i of list.items) items.push({ id: i.id, movieDbId: i.movieDbId, type: i.type, addedAt: i.addedAt, rank: items.length + 1 });
    cursor = list.itemsNextCursor;
  } while (cursor && items.length < upTo);
  const chosen = filtered ? items.filter((i) => types.includes(i.type)) : items;
  const window = paged ? chosen.slice(page.offset, page.offset + page.limit) : chosen;
  const titleOf = await pageTitles(call.em, window.map((i) => ({ type: i.type, movieDbId: i.movieDbId })));
  const body = window.flatMap((i) => {
    const t = titleOf(i);
    return t ? [{ rank: i.rank, id: i.id, listed_at: new Date(i.addedAt).toISOString(), notes: null, type: i.type, ...titleField(t) }] : [];
  });
  const headers: Record<string, string> = { 'X-Sort-By': sort ?? 'rank', 'X-Sort-How': sortHow ?? 'asc' };
  if (paged) Object.assign(headers, paginationHeaders(page, filtered ? chosen.length : itemCount));
  return { body, headers };
}
