// Trakt's reads of a user's library: /users/{id}/history, /watched, /ratings, /watchlist. `{id}` is `me`
// or a username; only the signed-in user's own library is served (library-owner.ts: an unknown user or
// a private profile is 404, another public profile 403). The reads are the sync reads' own.
import type { TraktRoute } from '../route.ts';
import { historyAnswer } from '../history-read.ts';
import { libraryOwner } from '../library-owner.ts';
import { ratingsAnswer } from '../ratings-read.ts';
import { watchedAnswer } from '../watched-read.ts';
import { watchlistAnswer } from '../watchlist-read.ts';

const tag = 'Users';

export const userLibraryRoutes: TraktRoute[] = [
  ...['/users/:id/history', '/users/:id/history/:type', '/users/:id/history/:type/:item_id'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'optional', scope: 'history:read', limits: ['history'], paged: true,
      summary: 'A user\'s watched history, newest first (the signed-in user\'s own)',
      handle: async (call) => historyAnswer(call, await libraryOwner(call, call.params.id!), call.params.type, call.params.item_id),
    }),
  ),
  {
    method: 'GET', path: '/users/:id/watched/:type', tag, auth: 'optional', scope: 'history:read',
    summary: 'A user\'s watched movies or shows (the signed-in user\'s own)',
    handle: async (call) => watchedAnswer(call, await libraryOwner(call, call.params.id!), call.params.type!),
  },
  ...['/users/:id/ratings', '/users/:id/ratings/:type', '/users/:id/ratings/:type/:rating'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'optional', scope: 'ratings:read', paged: true, statuses: [400],
      summary: 'A user\'s ratings (the signed-in user\'s own); pagination optional',
      handle: async (call) => {
        await libraryOwner(call, call.params.id!);
        return ratingsAnswer(call, call.params.type, call.params.rating);
      },
    }),
  ),
  ...['/users/:id/watchlist', '/users/:id/watchlist/:type', '/users/:id/watchlist/:type/:sort', '/users/:id/watchlist/:type/:sort/:sort_how'].map(
    (path): TraktRoute => ({
      method: 'GET', path, tag, auth: 'optional', paged: true,
      summary: 'A user\'s watchlist in rank order (the signed-in user\'s own); pagination optional',
      handle: async (call) => {
        await libraryOwner(call, call.params.id!);
        return watchlistAnswer(call, call.params.type, call.params.sort, call.params.sort_how);
      },
    }),
  ),
];
