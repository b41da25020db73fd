// The living catalog's first use: with a metadata provider configured (here the local fake of the movie
// database), a title named by id that the catalog lacks is fetched (a show with its seasons and episodes),
// stored, and the request that named it answered as if it had been there, on every path that names a
// title: the title detail and its seasons, a history write, a rating, bulk sync items, a playback event,
// a list add, an import row and a collection add; by IMDb and TheTVDB id through the provider's find.
// One fetch however many ask at once (on one instance and, in services mode, on two). A slow provider
// leaves the request answered as without one once the bound has passed, the title arriving later; a
// failing or malformed one is never a user's error, is recorded in catalog_fetch and not asked again
// before its retry time. Without a key nothing is asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFetcherOf } from '../src/core/catalog/fetch/registry.ts';
import type { CatalogFetcher } from '../src/core/catalog/fetch/fetcher.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { livingCatalogEnv, startFakeMovieDb, type FakeMovie, type FakeMovieDb, type FakeShow } from './helpers/fake-movie-db.ts';
import { jsonLines, jsonLinesImporters } from './helpers/import-lines.ts';
import { accountSession, finished, uploaded } from './helpers/imports.ts';
import { scrapeMetrics, seriesValue } from './helpers/metrics.ts';
import { member, platform, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';
import { until } from './helpers/wait.ts';

const METRICS_TOKEN = 'catalog-fetch-metrics-token';
const ALL_SCOPES = [...SCOPES];

let fake: FakeMovieDb;
/** A provider and a bound long enough that every request here sees its fetch end. */
let app: TestApp;
let alice: Member;

// Ids of the fake's titles, all of seven digits (no id's path is a prefix of another's), none in the catalog.
let nextMovie = 7_100_000;
let nextShow = 8_100_000;

function newMovie(over: Partial<FakeMovie> = {}): FakeMovie {
  const id = ++nextMovie;
  const m: FakeMovie = { id, title: `Fetched Movie ${id}`, releaseDate: '2019-05-17', runtime: 97, imdbId: `tt${id}`, ...over };
  fake.movie(m);
  return m;
}

/** A show of two seasons (three episodes, then two), every episode aired. */
function newShow(over: Partial<FakeShow> = {}): FakeShow {
  const id = ++nextShow;
  const s: FakeShow = {
    id,
    name: `Fetched Show ${id}`,
    firstAirDate: '2018-01-07',
    tvdbId: id + 1_000_000,
    imdbId: `tt${id}`,
    seasons: [
      { number: 1, episodes: [1, 2, 3].map((n) => ({ number: n, name: `Pilot part ${n}`, airDate: `2018-01-0${n + 6}` })) },
      { number: 2, episodes: [1, 2].map((n) => ({ number: n, name: `Return part ${n}`, airDate: `2019-02-0${n + 2}` })) },
    ],
    ...over,
  };
  fake.show(s);
  return s;
}

/** How many requests the fake received for exactly this path (a title's own, not its seasons'). */
const asked = (path: string) => fake.hits.filter((h) => h === path).length;
const moviePath = (m: FakeMovie) => `/3/movie/${m.id}`;
const showPath = (s: FakeShow) => `/3/tv/${s.id}`;

/** The catalog's title with its seasons and episodes, as stored. */
async function stored(a: TestApp, type: 'movie' | 'show', movieDbId: number) {
  const [title] = await sql<{ id: string; name: string; film_db_id: string | null; tv_db_id: number | null; refreshed_at: Date | null }>(
    a, 'select id::text, name, film_db_id, tv_db_id, refreshed_at from title where type = $1 and movie_db_id = $2', [type, movieDbId],
  );
  if (!title) return null;
  const seasons = await sql<{ season_number: number; episode_count: number }>(a, 'select season_number, episode_count from season where title_id = $1 order by season_number', [title.id]);
  const episodes = await sql<{ season_number: number; episode_number: number; name: string }>(
    a, 'select season_number, episode_number, name from episode where title_id = $1 order by season_number, episode_number', [title.id],
  );
  return { ...title, seasons, episodes };
}

async function expectMovieStored(a: TestApp, m: FakeMovie): Promise<void> {
  expect(await stored(a, 'movie', m.id)).toMatchObject({ name: m.title, film_db_id: m.imdbId, seasons: [], episodes: [], refreshed_at: expect.any(Date) });
}

async function expectShowStored(a: TestApp, s: FakeShow): Promise<void> {
  expect(await stored(a, 'show', s.id)).toMatchObject({
    name: s.name,
    tv_db_id: s.tvdbId,
    film_db_id: s.imdbId,
    seasons: s.seasons.map((season) => ({ season_number: season.number, episode_count: season.episodes.length })),
    episodes: s.seasons.flatMap((season) => season.episodes.map((e) => ({ season_number: season.number, episode_number: e.number, name: e.name }))),
    refreshed_at: expect.any(Date),
  });
}

async function fetchRow(a: TestApp, type: 'movie' | 'show', movieDbId: number) {
  const [row] = await sql<{ state: string; attempts: number; retry_in_s: number | null; claimed: boolean; last_error: string | null }>(
    a,
    `select state, attempts, extract(epoch from retry_at - now())::float8 as retry_in_s, claimed_until is not null as claimed, last_error
       from catalog_fetch where type = $1 and movie_db_id = $2`,
    [type, movieDbId],
  );
  return row ?? null;
}

/** Counts the requests that wait on the instance's fetcher, to release a held provider once they all do. */
function countWaiters(a: TestApp): { count(): number; restore(): void } {
  const fetcher = catalogFetcherOf(a.db.orm.em) as CatalogFetcher;
  const { ensure, ensureMissing } = fetcher;
  let n = 0;
  fetcher.ensure = (...args) => {
    n++;
    return ensure.apply(fetcher, args);
  };
  fetcher.ensureMissing = (...args) => {
    n++;
    return ensureMissing.apply(fetcher, args);
  };
  return {
    count: () => n,
    restore: () => {
      fetcher.ensure = ensure;
      fetcher.ensureMissing = ensureMissing;
    },
  };
}

/** Waits for a held answer's request to reach the fake (failing, not hanging, when it never does). */
async function reached(held: { arrived: Promise<void> }, what: string): Promise<void> {
  let yes = false;
  void held.arrived.then(() => (yes = true));
  await until(what, () => yes);
}

let clock = Date.now() - 3_600_000;
let seq = 0;
const playbackEvent = (over: Record<string, unknown>) => ({
  event_id: `fetch-ev-${++seq}`,
  event_created_at: (clock += 1000),
  playback_session_id: `fetch-session-${seq}`,
  progress: 0.1,
  ...over,
});
const moviePlayback = (m: FakeMovie, over: Record<string, unknown> = {}) => playbackEvent({ media_type: 'movie', title: m.title, movie_db_id: m.id, ...over });
const episodePlayback = (s: FakeShow, over: Record<string, unknown> = {}) => playbackEvent({ media_type: 'episode', title: s.name, movie_db_id: s.id, season: 1, episode: 2, ...over });

const WATCHED_AT = '2024-03-01T20:00:00.000Z';

beforeAll(async () => {
  fake = await startFakeMovieDb();
  app = await startTestApp(livingCatalogEnv(fake, { CATALOG_FETCH_WAIT_MS: '30000', METRICS_TOKEN, IMPORT_INTERVAL_MS: '200' }), { deps: { importers: jsonLinesImporters } });
  alice = await member(app, 'alice', ALL_SCOPES);
});
afterAll(async () => {
  await app?.stop();
  await fake?.close();
});

describe('first use on every path that names a title', () => {
  it('GET /title/{type}/{id}: an unknown movie and an unknown show are fetched and answered', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'GET', `/title/movie/${m.id}`);
    expect(movie.status).toBe(200);
    expect(movie.body.title).toMatchObject({ movieDbId: m.id, type: 'movie', name: m.title, year: 2019, runtimeMinutes: 97, seasonStats: [] });
    await expectMovieStored(app, m);

    const s = newShow();
    const show = await platform(app, alice.token, 'GET', `/title/show/${s.id}`);
    expect(show.status).toBe(200);
    expect(show.body.title).toMatchObject({ movieDbId: s.id, type: 'show', name: s.name, year: 2018, seasonsCount: 2, episodesCount: 5 });
    expect((show.body.title as { seasonStats: unknown[] }).seasonStats).toHaveLength(2);
    await expectShowStored(app, s);
    // The show with each of its seasons: one request each.
    expect([asked(showPath(s)), asked(`${showPath(s)}/season/1`), asked(`${showPath(s)}/season/2`), asked(moviePath(m))]).toEqual([1, 1, 1, 1]);
  });

  it('GET /title/show/{id}/seasons and /seasons/{n}: an unknown show is fetched and answered', async () => {
    const s = newShow();
    const seasons = await platform(app, alice.token, 'GET', `/title/show/${s.id}/seasons`);
    expect(seasons.status).toBe(200);
    expect((seasons.body.seasons as Array<{ seasonNumber: number; episodeCount: number }>).map((x) => [x.seasonNumber, x.episodeCount])).toEqual([[1, 3], [2, 2]]);
    await expectShowStored(app, s);

    const other = newShow();
    const season = await platform(app, alice.token, 'GET', `/title/show/${other.id}/seasons/2`);
    expect(season.status).toBe(200);
    expect((season.body.episodes as Array<{ name: string }>).map((e) => e.name)).toEqual(['Return part 1', 'Return part 2']);
  });

  it('POST /watch-history: an unknown movie, and an episode of an unknown show, are logged', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: m.id, watchedAt: WATCHED_AT });
    expect(movie.status).toBe(200);
    expect(movie.body).toMatchObject({ inserted: 1, skipped: 0, items: [{ movieDbId: m.id, type: 'movie', name: m.title, season: null, episode: null, runtimeMinutes: 97, watchedAt: WATCHED_AT, status: 'inserted' }] });
    await expectMovieStored(app, m);

    const s = newShow();
    const episode = await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: s.id, season: 1, episode: 2, watchedAt: WATCHED_AT });
    expect(episode.status).toBe(200);
    expect(episode.body).toMatchObject({ inserted: 1, skipped: 0, items: [{ movieDbId: s.id, type: 'show', name: s.name, season: 1, episode: 2, episodeTitle: 'Pilot part 2', status: 'inserted' }] });
    await expectShowStored(app, s);

    // A whole season of a show the catalog lacks: every aired episode of it.
    const t = newShow();
    const season = await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: t.id, season: 2, watchedAt: WATCHED_AT });
    expect(season.status).toBe(200);
    expect(season.body).toMatchObject({ inserted: 2, skipped: 0 });
  });

  it('POST /ratings: an unknown movie and a season of an unknown show are rated', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: m.id, rating: 8 });
    expect(movie.status).toBe(200);
    expect(movie.body).toMatchObject({ movieDbId: m.id, kind: 'movie', title: m.title, scope: 'title', rating: 8 });
    await expectMovieStored(app, m);

    const s = newShow();
    const season = await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: s.id, season: 2, rating: 6 });
    expect(season.status).toBe(200);
    expect(season.body).toMatchObject({ movieDbId: s.id, title: s.name, scope: 'season', season: 2, episode: null, rating: 6 });
    await expectShowStored(app, s);
  });

  it('POST /favourites and PUT /show-status: an unknown title is fetched; undoing them on one is a 404 with nothing asked', async () => {
    const m = newMovie();
    expect((await platform(app, alice.token, 'POST', '/favourites', { type: 'movie', movieDbId: m.id })).status).toBe(200);
    await expectMovieStored(app, m);
    const s = newShow();
    const status = await platform(app, alice.token, 'PUT', `/show-status/show/${s.id}`, { status: 'watching' });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ movieDbId: s.id, showStatus: 'watching' });

    const never = newMovie();
    expectError(await platform(app, alice.token, 'DELETE', `/favourites/movie/${never.id}`), 404, 'not_found');
    expectError(await platform(app, alice.token, 'DELETE', `/show-status/movie/${never.id}`), 404, 'not_found');
    expect(asked(moviePath(never))).toBe(0);
  });

  it('POST /sync/history, /sync/ratings and /sync/watchlist: a batch naming unknown titles is fetched once for the batch and applied', async () => {
    const m = newMovie();
    const s = newShow();
    const history = await bulk(app, alice.token, 'history', [
      { client_item_id: 'movie', movie_db_id: m.id, watched_at: WATCHED_AT },
      { client_item_id: 'episode', movie_db_id: s.id, season: 2, episode: 1, watched_at: WATCHED_AT },
      { client_item_id: 'again', movie_db_id: s.id, season: 2, episode: 2, watched_at: WATCHED_AT },
    ]);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ inserted: 3, deferred: 0, invalid: 0, idempotency_replayed: false });
    expect((history.body.results as Array<Record<string, unknown>>).map((r) => [r.client_item_id, r.status, r.resolved_movie_db_id])).toEqual([
      ['movie', 'inserted', m.id],
      ['episode', 'inserted', s.id],
      ['again', 'inserted', s.id],
    ]);
    await expectMovieStored(app, m);
    await expectShowStored(app, s);
    expect([asked(moviePath(m)), asked(showPath(s))]).toEqual([1, 1]);

    const r = newShow();
    const ratings = await bulk(app, alice.token, 'ratings', [{ movie_db_id: r.id, type: 'show', rating: 9 }]);
    expect(ratings.body).toMatchObject({ inserted: 1, deferred: 0, results: [{ status: 'inserted', resolved_movie_db_id: r.id }] });

    const w = newMovie();
    const gone = newMovie();
    const watchlist = await bulk(app, alice.token, 'watchlist', [{ movie_db_id: w.id }, { movie_db_id: gone.id, remove: true }]);
    // A removal of a title the catalog lacks fetches nothing: there is nothing to remove.
    expect(watchlist.body).toMatchObject({ inserted: 1, deferred: 1, results: [{ status: 'inserted', resolved_movie_db_id: w.id }, { status: 'deferred', reason: 'unmatched' }] });
    expect([asked(moviePath(w)), asked(moviePath(gone))]).toEqual([1, 0]);
  });

  it('POST /playback/{action}: an event for an unknown movie and for an episode of an unknown show is applied', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'POST', '/playback/start', moviePlayback(m));
    expect(movie.status).toBe(200);
    expect(movie.body).toMatchObject({ ok: true, media_type: 'movie', movie_db_id: m.id, film_db_id: m.imdbId, punchplay_id: `movie-${m.id}`, deduped: false, ignored: null });
    await expectMovieStored(app, m);

    const s = newShow();
    const episode = await platform(app, alice.token, 'POST', '/playback/start', episodePlayback(s));
    expect(episode.status).toBe(200);
    expect(episode.body).toMatchObject({ ok: true, media_type: 'episode', movie_db_id: s.id, tv_db_id: s.tvdbId, punchplay_id: `show-${s.id}`, season: 1, episode: 2, ignored: null });
    await expectShowStored(app, s);

    // By the service's own id.
    const p = newMovie();
    const own = await platform(app, alice.token, 'POST', '/playback/start', playbackEvent({ media_type: 'movie', title: 'Whatever the file says', punchplay_id: `movie-${p.id}` }));
    expect(own.body).toMatchObject({ movie_db_id: p.id, punchplay_id: `movie-${p.id}` });
  });

  it('POST /lists/{id}/items: unknown titles are fetched and added', async () => {
    const list = await platform(app, alice.token, 'POST', '/lists', { name: 'Fetched on first use' });
    expect(list.status).toBe(200);
    const m = newMovie();
    const s = newShow();
    const res = await platform(app, alice.token, 'POST', `/lists/${list.body.id}/items`, { items: [{ type: 'movie', movieDbId: m.id }, { type: 'show', movieDbId: s.id }] });
    expect(res.status).toBe(200);
    expect((res.body.results as Array<Record<string, unknown>>).map((r) => [r.type, r.movieDbId, r.status, (r.item as { movieDbId: number } | null)?.movieDbId])).toEqual([
      ['movie', m.id, 'added', m.id],
      ['show', s.id, 'added', s.id],
    ]);
    await expectMovieStored(app, m);
    await expectShowStored(app, s);
  });

  it('POST /me/collection: an unknown movie and a season of an unknown show are added', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: m.id, format: 'bluray' });
    expect(movie.status).toBe(200);
    expect(movie.body).toMatchObject({ movieDbId: m.id, format: 'bluray', season: 0 });
    await expectMovieStored(app, m);

    const s = newShow();
    const season = await platform(app, alice.token, 'POST', '/me/collection', { type: 'show', movieDbId: s.id, format: 'dvd', season: 2 });
    expect(season.status).toBe(200);
    expect(season.body).toMatchObject({ movieDbId: s.id, format: 'dvd', season: 2 });
    await expectShowStored(app, s);
  });

  it('an import: rows naming unknown titles are fetched before their batch and imported', async () => {
    const ana = await accountSession(app, 'ana_fetch');
    const [m, fav] = [newMovie(), newMovie()];
    const [s, listed] = [newShow(), newShow()];
    const at = (row: number) => ({ file: 'export.json', row, label: `row ${row}` });
    const id = await uploaded(app, ana, jsonLines([
      { kind: 'history', at: at(1), item: { movie_db_id: m.id, watched_at: WATCHED_AT } },
      { kind: 'history', at: at(2), item: { movie_db_id: s.id, season: 1, episode: 3, watched_at: WATCHED_AT } },
      { kind: 'favourite', at: at(3), title: { movie_db_id: fav.id, type: 'movie' } },
      { kind: 'list', at: at(4), name: 'Imported, fetched', description: null, items: [{ title: { tv_db_id: listed.tvdbId, type: 'show' }, note: null, at: at(5) }] },
    ]));
    const run = await finished(app, ana, id);
    expect(run).toMatchObject({ status: 'done', imported: 4, unmatched: 0, invalid: 0, error: null });
    await expectMovieStored(app, m);
    await expectMovieStored(app, fav);
    await expectShowStored(app, s);
    await expectShowStored(app, listed);
    expect(asked(`/3/find/${listed.tvdbId}?external_source=tvdb_id`)).toBe(1);
  });
});

describe('by the other ids: the provider finds the title', () => {
  it('a movie by its IMDb id (film_db_id) and a show by its TheTVDB id (tv_db_id)', async () => {
    const m = newMovie();
    const movie = await platform(app, alice.token, 'POST', '/playback/start', playbackEvent({ media_type: 'movie', title: m.title, film_db_id: m.imdbId }));
    expect(movie.status).toBe(200);
    expect(movie.body).toMatchObject({ movie_db_id: m.id, film_db_id: m.imdbId });
    expect(asked(`/3/find/${m.imdbId}?external_source=imdb_id`)).toBe(1);
    await expectMovieStored(app, m);

    const s = newShow();
    const show = await bulk(app, alice.token, 'history', [{ tv_db_id: s.tvdbId, season: 1, episode: 1, watched_at: WATCHED_AT }]);
    expect(show.body).toMatchObject({ inserted: 1, results: [{ status: 'inserted', resolved_movie_db_id: s.id }] });
    expect(asked(`/3/find/${s.tvdbId}?external_source=tvdb_id`)).toBe(1);
    await expectShowStored(app, s);

    // A show by its IMDb id.
    const t = newShow();
    const byImdb = await platform(app, alice.token, 'POST', '/playback/start', episodePlayback(t, { movie_db_id: undefined, film_db_id: t.imdbId }));
    expect(byImdb.body).toMatchObject({ movie_db_id: t.id, season: 1, episode: 2 });
    // And by its TheTVDB id in a playback event.
    const u = newShow();
    const byTvdb = await platform(app, alice.token, 'POST', '/playback/start', episodePlayback(u, { movie_db_id: undefined, tv_db_id: u.tvdbId, season: 2, episode: 1 }));
    expect(byTvdb.body).toMatchObject({ movie_db_id: u.id, tv_db_id: u.tvdbId, film_db_id: u.imdbId, season: 2, episode: 1 });
    await expectShowStored(app, u);
  });

  it('an id the provider does not know is answered as today, the find asked once an hour', async () => {
    const unknown = { media_type: 'movie', title: 'Nobody Knows This Film', film_db_id: 'tt0000001' };
    expectError(await platform(app, alice.token, 'POST', '/playback/start', playbackEvent(unknown)), 422, 'media_not_found');
    expectError(await platform(app, alice.token, 'POST', '/playback/start', playbackEvent(unknown)), 422, 'media_not_found');
    expect(asked('/3/find/tt0000001?external_source=imdb_id')).toBe(1);
  });
});

describe('one fetch however many ask', () => {
  it('ten concurrent first uses of one show (title detail, history writes, bulk items) make one fetch, and all are answered', async () => {
    const s = newShow();
    const held = fake.hold(showPath(s));
    const waiters = countWaiters(app);
    try {
      const requests = [
        ...Array.from({ length: 4 }, () => platform(app, alice.token, 'GET', `/title/show/${s.id}`)),
        ...Array.from({ length: 3 }, (_, i) => platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: s.id, season: 1, episode: i + 1, watchedAt: WATCHED_AT })),
        ...Array.from({ length: 3 }, (_, i) => bulk(app, alice.token, 'history', [{ movie_db_id: s.id, season: 2, episode: (i % 2) + 1, watched_at: `2024-03-0${i + 2}T20:00:00.000Z` }])),
      ];
      await reached(held, 'the show to be asked for');
      await until('all ten requests to wait on the fetch', () => waiters.count() >= 10);
      held.release();
      const answers = await Promise.all(requests);
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      for (const a of answers.slice(0, 4)) expect(a.body.title).toMatchObject({ movieDbId: s.id, name: s.name });
      for (const a of answers.slice(4, 7)) expect(a.body).toMatchObject({ inserted: 1 });
      for (const a of answers.slice(7)) expect(a.body).toMatchObject({ inserted: 1, deferred: 0 });
    } finally {
      waiters.restore();
      held.release();
    }
    expect([asked(showPath(s)), asked(`${showPath(s)}/season/1`), asked(`${showPath(s)}/season/2`)]).toEqual([1, 1, 1]);
    await expectShowStored(app, s);
    expect(await fetchRow(app, 'show', s.id)).toBeNull();
  });

  it.skipIf(!servicesMode)('concurrent first uses on two instances of one deployment make one fetch', async () => {
    const other = await startTestApp(livingCatalogEnv(fake, { CATALOG_FETCH_WAIT_MS: '30000' }), { sameDatabaseAs: app });
    const m = newMovie();
    const held = fake.hold(moviePath(m));
    const here = countWaiters(app);
    const there = countWaiters(other);
    try {
      // Ten watches on ten days, five asked of each instance.
      const requests = [app, other].flatMap((a, k) =>
        Array.from({ length: 5 }, (_, i) => platform(a, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: m.id, watchedAt: `2024-04-${String(k * 5 + i + 1).padStart(2, '0')}T20:00:00.000Z` })),
      );
      await reached(held, 'the movie to be asked for');
      await until('five requests on each instance to wait on the fetch', () => here.count() >= 5 && there.count() >= 5);
      held.release();
      const answers = await Promise.all(requests);
      expect(answers.map((a) => [a.status, (a.body as { inserted?: number }).inserted])).toEqual(Array(10).fill([200, 1]));
    } finally {
      here.restore();
      there.restore();
      held.release();
      await other.stop();
    }
    expect(asked(moviePath(m))).toBe(1);
    await expectMovieStored(app, m);
  });
});

describe('a slow provider: the request answers within the bound, the title arrives in the background', () => {
  let quick: TestApp;
  let bob: Member;

  beforeAll(async () => {
    quick = await startTestApp(livingCatalogEnv(fake, { CATALOG_FETCH_WAIT_MS: '300' }));
    bob = await member(quick, 'bob', ALL_SCOPES);
  });
  afterAll(() => quick?.stop());

  it('answers 404, deferred and 422 as without a provider while the answer is held, then the title is there', async () => {
    const m = newMovie();
    const held = fake.hold(moviePath(m));
    try {
      const detail = await platform(quick, bob.token, 'GET', `/title/movie/${m.id}`);
      await reached(held, 'the movie to be asked for');
      expectError(detail, 404, 'not_found');
      expectError(await platform(quick, bob.token, 'POST', '/watch-history', { type: 'movie', movieDbId: m.id, watchedAt: WATCHED_AT }), 404, 'not_found');
      expectError(await platform(quick, bob.token, 'POST', '/ratings', { type: 'movie', movieDbId: m.id, rating: 7 }), 404, 'not_found');
      expectError(await platform(quick, bob.token, 'POST', '/me/collection', { type: 'movie', movieDbId: m.id, format: 'digital' }), 404, 'not_found');
      expectError(await platform(quick, bob.token, 'POST', '/playback/start', moviePlayback(m)), 422, 'media_not_found');
      const synced = await bulk(quick, bob.token, 'history', [{ movie_db_id: m.id, watched_at: WATCHED_AT }]);
      expect(synced.status).toBe(200);
      expect(synced.body.results).toEqual([{ client_item_id: null, index: 0, status: 'deferred', id: null, reason: 'unmatched', resolved_movie_db_id: null, error: null }]);
      expect(await stored(quick, 'movie', m.id)).toBeNull();
      expect(await fetchRow(quick, 'movie', m.id)).toMatchObject({ state: 'running', claimed: true });
    } finally {
      held.release();
    }
    await until('the movie to arrive in the catalog', async () => (await stored(quick, 'movie', m.id)) !== null);
    await expectMovieStored(quick, m);
    const again = await bulk(quick, bob.token, 'history', [{ movie_db_id: m.id, watched_at: WATCHED_AT }]);
    expect(again.body).toMatchObject({ inserted: 1, deferred: 0 });
    expect(asked(moviePath(m))).toBe(1);
  });

  it('a show held at its second season arrives whole or not at all', async () => {
    const s = newShow();
    const held = fake.hold(`${showPath(s)}/season/2`);
    try {
      const res = await platform(quick, bob.token, 'POST', '/watch-history', { type: 'show', movieDbId: s.id, season: 1, episode: 1, watchedAt: WATCHED_AT });
      await reached(held, 'the second season to be asked for');
      expectError(res, 404, 'not_found');
      // The first season's answer is in, but nothing of the show is stored before the last one is.
      expect(await stored(quick, 'show', s.id)).toBeNull();
    } finally {
      held.release();
    }
    await until('the show to arrive in the catalog', async () => (await stored(quick, 'show', s.id)) !== null);
    await expectShowStored(quick, s);
  });
});

describe('a provider that fails or answers what does not fit', () => {
  it('500s: the request is answered as without a provider, the failure recorded with a retry time, nothing asked before it', async () => {
    const m = newMovie();
    fake.trouble(moviePath(m), { status: 500 });
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: m.id, watchedAt: WATCHED_AT }), 404, 'not_found');
    // The first request and its two retries.
    expect(asked(moviePath(m))).toBe(3);
    const row = await fetchRow(app, 'movie', m.id);
    expect(row).toMatchObject({ state: 'failed', attempts: 1, claimed: false, last_error: expect.stringContaining('500') });
    // A minute from the first failure.
    expect(row!.retry_in_s).toBeGreaterThan(30);
    expect(row!.retry_in_s).toBeLessThanOrEqual(60);

    const synced = await bulk(app, alice.token, 'history', [{ movie_db_id: m.id, watched_at: WATCHED_AT }]);
    expect(synced.body).toMatchObject({ deferred: 1, results: [{ status: 'deferred', reason: 'unmatched' }] });
    expectError(await platform(app, alice.token, 'POST', '/playback/start', moviePlayback(m)), 422, 'media_not_found');
    expectError(await platform(app, alice.token, 'GET', `/title/movie/${m.id}`), 404, 'not_found');
    expect(asked(moviePath(m))).toBe(3);
    expect(await fetchRow(app, 'movie', m.id)).toMatchObject({ state: 'failed', attempts: 1 });
  });

  it('a title the provider does not have: answered as today, recorded as missing for a day', async () => {
    const id = ++nextMovie;
    expectError(await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: id, rating: 5 }), 404, 'not_found');
    const row = await fetchRow(app, 'movie', id);
    expect(row).toMatchObject({ state: 'missing', attempts: 1, claimed: false, last_error: null });
    expect(row!.retry_in_s).toBeGreaterThan(86_000);
    expectError(await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: id, rating: 5 }), 404, 'not_found');
    expect(asked(`/3/movie/${id}`)).toBe(1);
  });

  const malformed: Array<[string, (id: number) => string]> = [
    ['a body that is not JSON', () => '{"id": 12, "title": "Cut sh'],
    ['a string id', (id) => JSON.stringify({ id: String(id), title: 'Stringly Typed', release_date: '2020-01-01' })],
    ['no title at all', (id) => JSON.stringify({ id, overview: 'A film without a name.', release_date: '2020-01-01' })],
    ['another title than the one asked for', (id) => JSON.stringify({ id: id + 1, title: 'Somebody Else', release_date: '2020-01-01' })],
  ];
  for (const [what, body] of malformed) {
    it(`a movie answered with ${what}: nothing stored, the fetch recorded invalid, the request answered as today`, async () => {
      const m = newMovie();
      fake.trouble(moviePath(m), { body: body(m.id) });
      expectError(await platform(app, alice.token, 'GET', `/title/movie/${m.id}`), 404, 'not_found');
      expect(await stored(app, 'movie', m.id)).toBeNull();
      const row = await fetchRow(app, 'movie', m.id);
      expect(row).toMatchObject({ state: 'invalid', attempts: 1, claimed: false, last_error: expect.stringContaining('the movie database') });
      expect(row!.retry_in_s).toBeGreaterThan(86_000);
      expect(asked(moviePath(m))).toBe(1);
    });
  }

  it('a show whose season answer does not fit: nothing of it stored (not even the title), recorded invalid', async () => {
    const s = newShow();
    fake.trouble(`${showPath(s)}/season/2`, { body: JSON.stringify({ name: 'Season 2', episodes: [{ episode_number: 'one', name: 'Bad' }] }) });
    const res = await bulk(app, alice.token, 'history', [{ movie_db_id: s.id, season: 1, episode: 1, watched_at: WATCHED_AT }]);
    expect(res.body).toMatchObject({ deferred: 1, inserted: 0 });
    expect(await stored(app, 'show', s.id)).toBeNull();
    expect(await fetchRow(app, 'show', s.id)).toMatchObject({ state: 'invalid', last_error: expect.stringContaining('season 2') });
  });
});

describe('without a provider key', () => {
  it('an unknown title is deferred, 404 or 422 as ever, and the provider is never asked', async () => {
    const bare = await startTestApp({ MOVIE_DB_API_URL: fake.url });
    try {
      const carol = await member(bare, 'carol', ALL_SCOPES);
      const m = newMovie();
      const s = newShow();
      expectError(await platform(bare, carol.token, 'GET', `/title/movie/${m.id}`), 404, 'not_found');
      expectError(await platform(bare, carol.token, 'GET', `/title/show/${s.id}/seasons`), 404, 'not_found');
      expectError(await platform(bare, carol.token, 'POST', '/watch-history', { type: 'show', movieDbId: s.id, season: 1, episode: 1, watchedAt: WATCHED_AT }), 404, 'not_found');
      expectError(await platform(bare, carol.token, 'POST', '/playback/start', moviePlayback(m)), 422, 'media_not_found');
      const synced = await bulk(bare, carol.token, 'history', [{ movie_db_id: m.id, watched_at: WATCHED_AT }, { film_db_id: s.imdbId, season: 1, episode: 1, watched_at: WATCHED_AT }]);
      expect(synced.body).toMatchObject({ deferred: 2, inserted: 0 });
      const list = await platform(bare, carol.token, 'POST', '/lists', { name: 'Nothing fetched' });
      const added = await platform(bare, carol.token, 'POST', `/lists/${list.body.id}/items`, { items: [{ type: 'movie', movieDbId: m.id }] });
      expect(added.body).toEqual({ results: [{ type: 'movie', movieDbId: m.id, status: 'not_found', item: null }] });
      expect(fake.hits.filter((h) => h.includes(String(m.id)) || h.includes(String(s.id)))).toEqual([]);
      expect(await sql(bare, 'select 1 from catalog_fetch')).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});

describe('metrics', () => {
  it('/metrics counts the fetches by outcome and the provider requests by answer', async () => {
    const before = await scrapeMetrics(app.url, METRICS_TOKEN);
    const m = newMovie();
    const failing = newMovie();
    fake.trouble(moviePath(failing), { status: 503 });
    expect((await platform(app, alice.token, 'GET', `/title/movie/${m.id}`)).status).toBe(200);
    expectError(await platform(app, alice.token, 'GET', `/title/movie/${failing.id}`), 404, 'not_found');
    const after = await scrapeMetrics(app.url, METRICS_TOKEN);
    const moved = (series: string) => seriesValue(after, series) - seriesValue(before, series);
    expect(moved('catalog_fetches_total{reason="first_use",outcome="stored"}')).toBe(1);
    expect(moved('catalog_fetches_total{reason="first_use",outcome="failed"}')).toBe(1);
    expect(moved('catalog_provider_requests_total{answer="ok"}')).toBe(1);
    expect(moved('catalog_provider_requests_total{answer="failed"}')).toBe(3);
    expect(after).toMatch(/^catalog_fetches_in_flight 0$/m);
  });
});
