// POST /sync/collection and POST /sync/collection/remove in Trakt's terms, through the collection
// procedures (collection.add and collection.remove, one call per item: there is no bulk one).
//
// This service collects whole titles and seasons in a format, not single episodes. So a movie is one
// item; a show without seasons is the whole show; a show's season (with or without episodes), a season
// item or an episode item is its season. The format comes from Trakt's `media_type` and `resolution`
// (bluray at uhd_4k is uhd_bluray; no media_type is digital). `collected_at` cannot be set: an item is
// collected when added. Counts are Trakt's: movies, and episodes, where a whole show or a season counts
// its aired episodes and a named episode one. An item of the same title, season and format already
// there is `existing`; `updated` is always 0 (nothing an existing item holds changes).
//
// Removing removes every copy (every format) of the movie, of the whole show (its seasons too) or of
// the season named.
import type { EntityManager } from '@mikro-orm/postgresql';
import { airedEpisodesOf } from '../core/catalog/episode-keys.ts';
import type { ResolvedTitle } from '../core/catalog/resolve.ts';
import { collectionItemsOf } from '../core/collection/items-of.ts';
import type { CollectionFormat } from '../core/collection/schemas.ts';
import { ApiError } from '../core/errors.ts';
import type { TraktCall } from './route.ts';
import { parseSyncBody } from './sync-body.ts';
import { NotFoundItems, resolveSyncTargets } from './sync-targets.ts';

const FORMATS: Record<string, CollectionFormat> = { bluray: 'bluray', hddvd: 'hd_dvd', dvd: 'dvd', digital: 'digital', vhs: 'vhs', laserdisc: 'laserdisc' };

/** The format of Trakt's media fields; null for a media type this service has none for (vcd, betamax). */
function formatOf(i: { media_type?: string | null | undefined; resolution?: string | null | undefined }): CollectionFormat | null {
  const type = i.media_type ?? 'digital';
  if (type === 'bluray' && i.resolution === 'uhd_4k') return 'uhd_bluray';
  return FORMATS[type] ?? null;
}

/** One thing to collect: a title, or a season of a show (`season` null: the whole title). */
type Piece = {
  title: ResolvedTitle;
  season: number | null;
  format: CollectionFormat | null;
  /** How Trakt counts it: a movie, or episodes (`episodes` null: its aired episodes, counted below). */
  kind: 'movies' | 'episodes';
  episodes: number | null;
  miss: () => void;
};

function piecesOf(body: ReturnType<typeof parseSyncBody>, targets: Awaited<ReturnType<typeof resolveSyncTargets>>, notFound: NotFoundItems): Piece[] {
  const pieces: Piece[] = [];
  body.movies.forEach((item, i) => {
    const title = targets.movies[i];
    if (!title) return notFound.item('movies', item);
    pieces.push({ title, season: null, format: formatOf(item), kind: 'movies', episodes: 1, miss: () => notFound.item('movies', item) });
  });
  body.shows.forEach((show, i) => {
    const title = targets.shows[i];
    if (!title) return notFound.item('shows', show);
    if (!show.seasons?.length) return void pieces.push({ title, season: null, format: formatOf(show), kind: 'episodes', episodes: null, miss: () => notFound.item('shows', show) });
    for (const season of show.seasons) {
      const named = season.episodes?.length ?? 0;
      // The season's media fields, else its first episode's that has them, else the show's.
      const format = formatOf(season.media_type ? season : (season.episodes?.find((e) => e.media_type) ?? show));
      pieces.push({ title, season: season.number, format, kind: 'episodes', episodes: named || null, miss: () => notFound.showPart(i, show, season) });
    }
  });
  body.seasons.forEach((item, i) => {
    const t = targets.seasons[i];
    if (!t) return notFound.item('seasons', item);
    pieces.push({ title: t.title, season: t.season, format: formatOf(item), kind: 'episodes', episodes: null, miss: () => notFound.item('seasons', item) });
  });
  body.episodes.forEach((item, i) => {
    const t = targets.episodes[i];
    if (!t) return notFound.item('episodes', item);
    pieces.push({ title: t.title, season: t.season, format: formatOf(item), kind: 'episodes', episodes: 1, miss: () => notFound.item('episodes', item) });
  });
  return pieces;
}

/** Each piece's count: 1 for a movie, the named episodes, else the aired episodes of the show or season (one statement). */
async function countsOf(em: EntityManager, pieces: Piece[]): Promise<number[]> {
  const open = pieces.flatMap((p, i) => (p.episodes === null ? [i] : []));
  const aired = await airedEpisodesOf(em, open.map((i) => ({ titleId: pieces[i]!.title.id, season: pieces[i]!.season })));
  const counts = pieces.map((p) => p.episodes ?? 0);
  open.forEach((i, k) => (counts[i] = aired[k]?.length ?? 0));
  return counts;
}

const keyOf = (titleId: string, season: number | null, format: string) => `${titleId}/${season ?? ''}/${format}`;

export async function addToCollection(call: TraktCall) {
  const body = parseSyncBody(call.body);
  const targets = await resolveSyncTargets(call.em, body);
  const notFound = new NotFoundItems();
  const pieces = piecesOf(body, targets, notFound);
  const counts = await countsOf(call.em, pieces);
  const there = new Set((await collectionItemsOf(call.em, call.actor!.userId, pieces.map((p) => p.title.id))).map((i) => keyOf(i.titleId, i.season, i.format)));
  const added = { movies: 0, episodes: 0 };
  const existing = { movies: 0, episodes: 0 };
  for (const [i, p] of pieces.entries()) {
    // Season 0 (specials) and a media type with no format here cannot be collected: not found.
    if (p.format === null || p.season === 0) {
      p.miss();
      continue;
    }
    const key = keyOf(p.title.id, p.season, p.format);
    try {
      await call.procedures.platform.collection.add({ type: p.title.type, movieDbId: p.title.movieDbId, format: p.format, ...(p.season !== null ? { season: p.season } : {}) });
    } catch (err) {
      // A season the show does not have.
      if (err instanceof ApiError && err.code === 'not_found') {
        p.miss();
        continue;
      }
      throw err;
    }
    (there.has(key) ? existing : added)[p.kind] += counts[i]!;
    there.add(key);
  }
  return { status: 201, body: { added, updated: { movies: 0, episodes: 0 }, existing, not_found: notFound.toJSON() } };
}

export async function removeFromCollection(call: TraktCall) {
  const body = parseSyncBody(call.body);
  const targets = await resolveSyncTargets(call.em, body);
  const notFound = new NotFoundItems();
  const pieces = piecesOf(body, targets, notFound);
  const items = await collectionItemsOf(call.em, call.actor!.userId, pieces.map((p) => p.title.id));
  const removed = new Set<number>();
  const deleted = { movies: 0, episodes: 0 };
  const counts = await countsOf(call.em, pieces);
  for (const [i, p] of pieces.entries()) {
    // Its copies not removed for an earlier item of the body (a show, then one of its seasons).
    const mine = items.filter((it) => it.titleId === p.title.id && (p.season === null || it.season === p.season) && !removed.has(it.id));
    for (const it of mine) {
      try {
        await call.procedures.platform.collection.remove({ id: it.id });
      } catch (err) {
        // Removed meanwhile by another request.
        if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
      }
      removed.add(it.id);
    }
    if (mine.length) deleted[p.kind] += counts[i]!;
  }
  return { status: 200, body: { deleted, not_found: notFound.toJSON() } };
}
