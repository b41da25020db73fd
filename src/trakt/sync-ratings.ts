// POST /sync/ratings and POST /sync/ratings/remove in Trakt's terms, through the bulk ratings procedure
// (sync-batches.ts): a movie, a show, a season (in `seasons`, or a show's `seasons` entry with a
// `rating`) or an episode (in `episodes`, or a show's season's `episodes` entry with a `rating`).
// Rating again with the same or another rating counts as added, as on Trakt (the rating is then what was
// sent); removing what is not rated counts as nothing. A show item whose own `rating` is absent rates
// only the seasons and episodes inside it that carry one.
import type { TraktCall } from './route.ts';
import { runBulk } from './sync-batches.ts';
import { parseSyncBody } from './sync-body.ts';
import { NotFoundItems, resolveSyncTargets } from './sync-targets.ts';

type Kind = 'movies' | 'shows' | 'seasons' | 'episodes';
type Rate = {
  item: { movie_db_id: number; type: 'movie' | 'show'; season?: number; episode?: number; rating?: number; rated_at?: string; remove?: true };
  kind: Kind;
  miss: () => void;
};

const counts = () => ({ movies: 0, shows: 0, seasons: 0, episodes: 0 });

async function writeRatings(call: TraktCall, remove: boolean) {
  const body = parseSyncBody(call.body, { needsRating: !remove });
  const targets = await resolveSyncTargets(call.em, body);
  const notFound = new NotFoundItems();
  const rates: Rate[] = [];
  // What each item asks: its rating (and date), or its removal.
  const ask = (i: { rating?: number | undefined; rated_at?: string | null | undefined }) =>
    remove ? { remove: true as const } : { rating: i.rating!, ...(i.rated_at ? { rated_at: i.rated_at } : {}) };

  body.movies.forEach((item, i) => {
    const title = targets.movies[i];
    if (!title) return notFound.item('movies', item);
    rates.push({ item: { movie_db_id: title.movieDbId, type: 'movie', ...ask(item) }, kind: 'movies', miss: () => notFound.item('movies', item) });
  });
  body.shows.forEach((show, i) => {
    const title = targets.shows[i];
    if (!title) return notFound.item('shows', show);
    const base = { movie_db_id: title.movieDbId, type: 'show' as const };
    if (remove ? !show.seasons?.length : show.rating !== undefined) rates.push({ item: { ...base, ...ask(show) }, kind: 'shows', miss: () => notFound.item('shows', show) });
    for (const season of show.seasons ?? []) {
      if (remove ? !season.episodes?.length : season.rating !== undefined) {
        rates.push({ item: { ...base, season: season.number, ...ask(season) }, kind: 'seasons', miss: () => notFound.showPart(i, show, season) });
      }
      for (const ep of season.episodes ?? []) {
        if (!remove && ep.rating === undefined) continue;
        rates.push({ item: { ...base, season: season.number, episode: ep.number, ...ask(ep) }, kind: 'episodes', miss: () => notFound.showPart(i, show, season, ep) });
      }
    }
  });
  body.seasons.forEach((item, i) => {
    const t = targets.seasons[i];
    if (!t) return notFound.item('seasons', item);
    rates.push({ item: { movie_db_id: t.title.movieDbId, type: 'show', season: t.season, ...ask(item) }, kind: 'seasons', miss: () => notFound.item('seasons', item) });
  });
  body.episodes.forEach((item, i) => {
    const t = targets.episodes[i];
    if (!t) return notFound.item('episodes', item);
    rates.push({ item: { movie_db_id: t.title.movieDbId, type: 'show', season: t.season, episode: t.episode, ...ask(item) }, kind: 'episodes', miss: () => notFound.item('episodes', item) });
  });

  const outcomes = await runBulk(call, 'ratings', rates.map((r) => r.item));
  const done = counts();
  outcomes.forEach((o, i) => {
    const r = rates[i]!;
    if (o.status === 'deferred' || o.status === 'invalid') r.miss();
    else if (remove ? o.status === 'removed' : o.status !== 'skipped' || o.reason === 'unchanged') done[r.kind] += 1;
  });
  return remove ? { status: 200, body: { deleted: done, not_found: notFound.toJSON() } } : { status: 201, body: { added: done, not_found: notFound.toJSON() } };
}

export const addRatings = (call: TraktCall) => writeRatings(call, false);
export const removeRatings = (call: TraktCall) => writeRatings(call, true);
