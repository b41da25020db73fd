// POST /sync/watchlist and POST /sync/watchlist/remove in Trakt's terms, through the bulk watchlist
// procedure (sync-batches.ts). This service's watchlist holds movies and shows: a season or an episode
// puts its show on it (and removing one takes its show off), counted under `seasons` or `episodes` as
// sent; a show item's `seasons` likewise stand for the show. A title already there is `existing`.
// `list` is the watchlist's item count and last change after the write.
import { watchlistFigures } from '../core/lists/watchlist-figures.ts';
import type { TraktCall } from './route.ts';
import { runBulk } from './sync-batches.ts';
import { parseSyncBody } from './sync-body.ts';
import { NotFoundItems, resolveSyncTargets } from './sync-targets.ts';

type Kind = 'movies' | 'shows' | 'seasons' | 'episodes';
type Entry = { item: { movie_db_id: number; type: 'movie' | 'show'; remove?: true }; kind: Kind; miss: () => void };

const counts = () => ({ movies: 0, shows: 0, seasons: 0, episodes: 0 });

async function writeWatchlist(call: TraktCall, remove: boolean) {
  const body = parseSyncBody(call.body);
  const targets = await resolveSyncTargets(call.em, body);
  const notFound = new NotFoundItems();
  const entries: Entry[] = [];
  const push = (movieDbId: number, type: 'movie' | 'show', kind: Kind, item: unknown) =>
    entries.push({ item: { movie_db_id: movieDbId, type, ...(remove ? { remove: true as const } : {}) }, kind, miss: () => notFound.item(kind, item) });

  body.movies.forEach((item, i) => {
    const t = targets.movies[i];
    if (t) push(t.movieDbId, 'movie', 'movies', item);
    else notFound.item('movies', item);
  });
  body.shows.forEach((item, i) => {
    const t = targets.shows[i];
    if (t) push(t.movieDbId, 'show', 'shows', item);
    else notFound.item('shows', item);
  });
  body.seasons.forEach((item, i) => {
    const t = targets.seasons[i];
    if (t) push(t.title.movieDbId, 'show', 'seasons', item);
    else notFound.item('seasons', item);
  });
  body.episodes.forEach((item, i) => {
    const t = targets.episodes[i];
    if (t) push(t.title.movieDbId, 'show', 'episodes', item);
    else notFound.item('episodes', item);
  });

  const outcomes = await runBulk(call, 'watchlist', entries.map((e) => e.item));
  const done = counts();
  const existing = counts();
  outcomes.forEach((o, i) => {
    const e = entries[i]!;
    if (o.status === 'deferred' || o.status === 'invalid') e.miss();
    else if (o.status === 'inserted' || o.status === 'removed') done[e.kind] += 1;
    else if (!remove && o.status === 'skipped') existing[e.kind] += 1;
  });
  // A user who never had a watchlist and removed nothing still has none: an empty one, as of now.
  const figures = await watchlistFigures(call.em, call.actor!.userId);
  const list = { updated_at: (figures?.updatedAt ?? new Date()).toISOString(), item_count: figures?.itemCount ?? 0 };
  return remove
    ? { status: 200, body: { deleted: done, not_found: notFound.toJSON(), list } }
    : { status: 201, body: { added: done, existing, not_found: notFound.toJSON(), list } };
}

export const addToWatchlist = (call: TraktCall) => writeWatchlist(call, false);
export const removeFromWatchlist = (call: TraktCall) => writeWatchlist(call, true);
