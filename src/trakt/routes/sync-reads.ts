// Trakt's sync reads of the signed-in user's library: history, watched, ratings, watchlist, collection.
// Routes served from core reads (history, watched, ratings by value) carry the scope of the matching
// procedure; the rest call the procedures, which check their own.
import type { TraktRoute } from '../route.ts';
import { collectionAnswer } from '../collection-read.ts';
import { historyAnswer } from '../history-read.ts';
import { ratingsAnswer } from '../ratings-read.ts';
import { watchedAnswer } from '../watched-read.ts';
import { watchlistAnswer } from '../watchlist-read.ts';

const tag = 'Sync';
const me = (call: { actor: { userId: string } | null }) => call.actor!.userId;

export const syncReadRoutes: TraktRoute[] = [
  ...['/sync/history', '/sync/history/:type', '/sync/history/:type/:id'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'required', scope: 'history:read', limits: ['history'], paged: true,
      summary: 'Watched history, newest first (type movies, shows, seasons or episodes; a Trakt id; start_at, end_at)',
      handle: (call) => historyAnswer(call, me(call), call.params.type, call.params.id),
    }),
  ),
  {
    method: 'GET', path: '/sync/watched/:type', tag, auth: 'required', scope: 'history:read',
    summary: 'Watched movies or shows: plays and latest watch per title (extended=noseasons drops seasons)',
    handle: (call) => watchedAnswer(call, me(call), call.params.type!),
  },
  ...['/sync/ratings', '/sync/ratings/:type', '/sync/ratings/:type/:rating'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'required', scope: 'ratings:read', paged: true, statuses: [400],
      summary: 'Ratings, most recently changed first (type movies, shows, seasons, episodes or all; rating 1 to 10); pagination optional',
      handle: (call) => ratingsAnswer(call, call.params.type, call.params.rating),
    }),
  ),
  ...['/sync/watchlist', '/sync/watchlist/:type', '/sync/watchlist/:type/:sort', '/sync/watchlist/:type/:sort/:sort_how'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'required', paged: true,
      summary: 'The watchlist in rank order (type movies, shows or movie,show); X-Sort-By and X-Sort-How; pagination optional',
      handle: (call) => watchlistAnswer(call, call.params.type, call.params.sort, call.params.sort_how),
    }),
  ),
  {
    method: 'GET', path: '/sync/collection/:type', tag, auth: 'required',
    summary: 'Collected movies, or shows with their collected seasons and episodes (extended=metadata)',
    handle: (call) => collectionAnswer(call, call.params.type!),
  },
];
