// Trakt's sync endpoints. The writes (POST /sync/{history,ratings,watchlist,collection}[/remove]) go
// through the service's procedures (sync-history.ts, sync-ratings.ts, sync-watchlist.ts,
// sync-collection.ts), which check their own scopes.
import type { TraktRoute } from '../route.ts';
import { addToCollection, removeFromCollection } from '../sync-collection.ts';
import { addHistory, removeHistory } from '../sync-history.ts';
import { addRatings, removeRatings } from '../sync-ratings.ts';
import { addToWatchlist, removeFromWatchlist } from '../sync-watchlist.ts';

const write = (path: string, summary: string, handle: TraktRoute['handle'], statuses: readonly number[]): TraktRoute => ({
  method: 'POST',
  path,
  summary,
  tag: 'Sync',
  auth: 'required',
  statuses: [...statuses, 400, 412, 413, 422],
  handle,
});

export const syncRoutes: TraktRoute[] = [
  write('/sync/history', 'Add items to watched history', addHistory, [201, 409]),
  write('/sync/history/remove', 'Remove items from history', removeHistory, []),
  write('/sync/ratings', 'Add new ratings', addRatings, [201, 409]),
  write('/sync/ratings/remove', 'Remove ratings', removeRatings, [409]),
  write('/sync/watchlist', 'Add items to watchlist', addToWatchlist, [201, 409]),
  write('/sync/watchlist/remove', 'Remove items from watchlist', removeFromWatchlist, [409]),
  write('/sync/collection', 'Add items to collection', addToCollection, [201]),
  write('/sync/collection/remove', 'Remove items from collection', removeFromCollection, []),
];
