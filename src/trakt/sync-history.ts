// POST /sync/history and POST /sync/history/remove in Trakt's terms.
//
// Adding goes through the bulk history procedure (sync-batches.ts): one item per movie and per episode.
// A show without seasons is every aired episode of its regular seasons, a season without episodes every
// aired episode of it (an episode without an air date counts as aired, as everywhere). A watch of the
// same movie or episode within an hour of one already logged is not logged again (the service's rule):
// it is not counted as added. Items without `watched_at` are watched now.
//
// Removing goes through the history procedure that removes one entry (history.remove), once per entry
// the items name: every watch of the movies, episodes, seasons and shows named, and the entries of `ids`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { airedEpisodesOf } from '../core/catalog/episode-keys.ts';
import { resolveEpisodes } from '../core/catalog/resolve.ts';
import { ApiError } from '../core/errors.ts';
import { historyEntriesOf } from '../core/library/history-entries-of.ts';
import type { TraktCall } from './route.ts';
import { runBulk } from './sync-batches.ts';
import { parseSyncBody } from './sync-body.ts';
import { NotFoundItems, resolveSyncTargets } from './sync-targets.ts';

type Watch = { movie_db_id: number; season?: number; episode?: number; watched_at: string; kind: 'movies' | 'episodes'; miss: () => void };

/** The episodes to expand (a show's regular seasons, or one season), each with what to do with them. */
type Expansion = { titleId: string; season: number | null; each: (season: number, episode: number) => void; none: () => void };

async function expand(em: EntityManager, expansions: Expansion[]): Promise<void> {
  const found = await airedEpisodesOf(em, expansions.map((e) => ({ titleId: e.titleId, season: e.season })));
  expansions.forEach((x, i) => {
    const episodes = found[i] ?? [];
    if (episodes.length === 0) x.none();
    for (const ep of episodes) x.each(ep.season, ep.episode);
  });
}

export async function addHistory(call: TraktCall) {
  const body = parseSyncBody(call.body);
  const targets = await resolveSyncTargets(call.em, body);
  const now = new Date().toISOString();
  const notFound = new NotFoundItems();
  const watches: Watch[] = [];
  const expansions: Expansion[] = [];

  body.movies.forEach((item, i) => {
    const title = targets.movies[i];
    if (!title) return notFound.item('movies', item);
    watches.push({ movie_db_id: title.movieDbId, watched_at: item.watched_at ?? now, kind: 'movies', miss: () => notFound.item('movies', item) });
  });
  body.shows.forEach((show, i) => {
    const title = targets.shows[i];
    if (!title) return notFound.item('shows', show);
    const episode = (season: number, episode: number, at: string, miss: () => void) =>
      watches.push({ movie_db_id: title.movieDbId, season, episode, watched_at: at, kind: 'episodes', miss });
    if (!show.seasons?.length) {
      const at = show.watched_at ?? now;
      expansions.push({ titleId: title.id, season: null, each: (s, e) => episode(s, e, at, () => notFound.item('shows', show)), none: () => {} });
      return;
    }
    for (const season of show.seasons) {
      const at = season.watched_at ?? show.watched_at ?? now;
      if (season.episodes?.length) {
        for (const ep of season.episodes) episode(season.number, ep.number, ep.watched_at ?? at, () => notFound.showPart(i, show, season, ep));
      } else {
        expansions.push({ titleId: title.id, season: season.number, each: (s, e) => episode(s, e, at, () => notFound.showPart(i, show, season)), none: () => notFound.showPart(i, show, season) });
      }
    }
  });
  body.seasons.forEach((item, i) => {
    const target = targets.seasons[i];
    if (!target) return notFound.item('seasons', item);
    const at = item.watched_at ?? now;
    const miss = () => notFound.item('seasons', item);
    expansions.push({ titleId: target.title.id, season: target.season, each: (s, e) => watches.push({ movie_db_id: target.title.movieDbId, season: s, episode: e, watched_at: at, kind: 'episodes', miss }), none: () => {} });
  });
  body.episodes.forEach((item, i) => {
    const target = targets.episodes[i];
    if (!target) return notFound.item('episodes', item);
    watches.push({ movie_db_id: target.title.movieDbId, season: target.season, episode: target.episode, watched_at: item.watched_at ?? now, kind: 'episodes', miss: () => notFound.item('episodes', item) });
  });
  await expand(call.em, expansions);

  const outcomes = await runBulk(
    call,
    'history',
    watches.map(({ movie_db_id, season, episode, watched_at }) => ({ movie_db_id, watched_at, ...(season !== undefined ? { season, episode } : {}) })),
  );
  const added = { movies: 0, episodes: 0 };
  outcomes.forEach((o, i) => {
    const w = watches[i]!;
    if (o.status === 'inserted') added[w.kind] += 1;
    // A title, season or episode the catalog lacks (or an item the procedure refused): not found.
    else if (o.status === 'deferred' || o.status === 'invalid') w.miss();
  });
  return { status: 201, body: { added, not_found: notFound.toJSON() } };
}

export async function removeHistory(call: TraktCall) {
  const body = parseSyncBody(call.body);
  const targets = await resolveSyncTargets(call.em, body);
  const notFound = new NotFoundItems();
  const movieTitleIds: string[] = [];
  const showTitleIds: string[] = [];
  const seasons: { titleId: string; season: number }[] = [];
  const episodeIds: string[] = [];

  body.movies.forEach((item, i) => {
    const title = targets.movies[i];
    if (title) movieTitleIds.push(title.id);
    else notFound.item('movies', item);
  });
  // A show's episodes named by number are looked for together.
  const named: { titleId: string; season: number; episode: number; miss: () => void }[] = [];
  body.shows.forEach((show, i) => {
    const title = targets.shows[i];
    if (!title) return notFound.item('shows', show);
    if (!show.seasons?.length) return void showTitleIds.push(title.id);
    for (const season of show.seasons) {
      if (!season.episodes?.length) seasons.push({ titleId: title.id, season: season.number });
      for (const ep of season.episodes ?? []) named.push({ titleId: title.id, season: season.number, episode: ep.number, miss: () => notFound.showPart(i, show, season, ep) });
    }
  });
  const episodes = await resolveEpisodes(call.em, named.map((n) => ({ titleId: n.titleId, season: n.season, episode: n.episode })));
  named.forEach((n, i) => {
    const ep = episodes[i];
    if (ep) episodeIds.push(ep.id);
    else n.miss();
  });
  body.seasons.forEach((item, i) => {
    const target = targets.seasons[i];
    if (target) seasons.push({ titleId: target.title.id, season: target.season });
    else notFound.item('seasons', item);
  });
  body.episodes.forEach((item, i) => {
    const target = targets.episodes[i];
    if (target) episodeIds.push(target.id);
    else notFound.item('episodes', item);
  });

  // The entries named, read once to say what each is (a movie's or an episode's) and which ids are not the user's.
  const entries = await historyEntriesOf(call.em, call.actor!.userId, { movieTitleIds, showTitleIds, seasons, episodeIds, entryIds: body.ids });
  const known = new Set(entries.map((e) => e.id));
  const missingIds = [...new Set(body.ids.filter((id) => !known.has(id)))];
  const deleted = { movies: 0, episodes: 0 };
  for (const entry of entries) {
    try {
      await call.procedures.platform.history.remove({ id: entry.id });
      deleted[entry.episodeId === null ? 'movies' : 'episodes'] += 1;
    } catch (err) {
      // Removed meanwhile by another request: nothing left to remove.
      if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
    }
  }
  return { status: 200, body: { deleted, not_found: { ...notFound.toJSON(), ids: missingIds } } };
}
