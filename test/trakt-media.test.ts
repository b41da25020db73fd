// Trakt's media endpoints on the facade: a movie and a show (by Trakt id, slug and IMDb id; standard and
// extended=full), seasons (with episodes), a season's episodes, an episode, trending with its watchers
// and pagination, a show's watched progress and the calendar of followed shows: exact field names,
// types and nullability, and the statuses (401, 403, 404, 400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpTrending } from '../src/core/catalog/trending-rollup.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { call } from './helpers/http.ts';
import { FIRST_SHOW, member, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { sql, titleId, watch } from './helpers/title-fixtures.ts';
import { pagination, trakt } from './helpers/trakt.ts';

let app: TestApp;
let alice: Member;
/** alice's app's key with no token: Trakt's public reads. */
let anon: { clientId: string };
let movieRowId: string;
let showRowId: string;
let showSlug: string;

const MOVIE = { type: 'movie' as const, movieDbId: SPIRITED_AWAY };
const SHOW = { type: 'show' as const, movieDbId: FIRST_SHOW };

type Json = Record<string, unknown>;
const keys = (o: unknown) => Object.keys(o as object).sort();

const MOVIE_FULL_KEYS = [
  'after_credits', 'available_translations', 'certification', 'comment_count', 'country', 'during_credits', 'genres', 'homepage', 'ids', 'language',
  'languages', 'original_title', 'overview', 'rating', 'released', 'runtime', 'status', 'subgenres', 'tagline', 'title', 'trailer', 'updated_at', 'votes', 'year',
].sort();
const SHOW_FULL_KEYS = [
  'aired_episodes', 'airs', 'available_translations', 'certification', 'comment_count', 'country', 'first_aired', 'genres', 'homepage', 'ids', 'language',
  'languages', 'network', 'original_title', 'overview', 'rating', 'runtime', 'status', 'subgenres', 'tagline', 'title', 'total_runtime', 'trailer', 'updated_at',
  'votes', 'year',
].sort();
const EPISODE_FULL_KEYS = [
  'after_credits', 'available_translations', 'comment_count', 'during_credits', 'episode_type', 'first_aired', 'ids', 'number', 'number_abs', 'original_title',
  'overview', 'rating', 'runtime', 'season', 'title', 'updated_at', 'votes',
].sort();

const isoTime = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** An episode in Trakt's standard form, its ids the service's (only `trakt`). */
const standardEpisode = (season: number, number: number) => ({ season, number, title: expect.any(String), ids: { trakt: expect.any(Number), tvdb: null, imdb: null, tmdb: null } });

async function episodeRowId(season: number, episode: number): Promise<number> {
  const [row] = await sql<{ id: string }>(app, 'select id from episode where title_id = $1 and season_number = $2 and episode_number = $3', [showRowId, season, episode]);
  return Number(row!.id);
}

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ['profile:read', 'history:read']);
  anon = { clientId: alice.clientId };
  movieRowId = await titleId(app, MOVIE);
  showRowId = await titleId(app, SHOW);
  const [show] = await sql<{ name: string; year: number }>(app, 'select name, year from title where id = $1', [showRowId]);
  showSlug = `${show!.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${show!.year}`;
});
afterAll(() => app?.stop());

describe('GET /movies/{id}', () => {
  const standard = () => ({ title: 'Spirited Away', year: 2001, ids: { trakt: Number(movieRowId), slug: 'spirited-away-2001', imdb: 'tt0245429', tmdb: SPIRITED_AWAY } });

  it('answers the standard object by Trakt id, slug and IMDb id, without a token', async () => {
    for (const id of [movieRowId, 'spirited-away-2001', 'tt0245429']) {
      const res = await trakt(app, anon, 'GET', `/movies/${id}`);
      expect(res.status, id).toBe(200);
      expect(res.body).toStrictEqual(standard());
    }
  });

  it('extended=full adds the details, null where the service has none', async () => {
    const res = await trakt(app, anon, 'GET', `/movies/${movieRowId}?extended=full`);
    expect(res.status).toBe(200);
    const m = res.body;
    expect(keys(m)).toEqual(MOVIE_FULL_KEYS);
    expect(m).toMatchObject({
      ...standard(),
      tagline: 'The tunnel led Chihiro to a mysterious town...',
      overview: expect.stringContaining('Chihiro'),
      released: '2001-07-20',
      runtime: 125,
      country: null,
      trailer: null,
      homepage: null,
      status: 'released',
      rating: 8.3,
      votes: 3968,
      comment_count: 0,
      updated_at: isoTime,
      language: 'ja',
      languages: ['ja'],
      available_translations: [],
      genres: ['fantasy', 'adventure', 'animation', 'family'],
      subgenres: [],
      original_title: '千と千尋の神隠し',
      after_credits: null,
      during_credits: null,
    });
    expect(m.certification === null || typeof m.certification === 'string').toBe(true);
  });

  it('404 in Trakt\'s body for an unknown id, slug or IMDb id, and for a show\'s id', async () => {
    for (const id of ['999999999', 'no-such-movie-1999', 'tt0000001', showRowId]) {
      const res = await trakt(app, anon, 'GET', `/movies/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
  });
});

describe('GET /shows/{id}', () => {
  it('answers the standard object by Trakt id and slug', async () => {
    for (const id of [showRowId, showSlug]) {
      const res = await trakt(app, anon, 'GET', `/shows/${id}`);
      expect(res.status, id).toBe(200);
      expect(res.body).toStrictEqual({
        title: expect.any(String),
        year: expect.any(Number),
        ids: { trakt: Number(showRowId), slug: showSlug, tvdb: null, imdb: null, tmdb: FIRST_SHOW, tvrage: null },
      });
    }
  });

  it('extended=full adds the details; aired_episodes counts the regular episodes aired', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showSlug}?extended=full`);
    expect(res.status).toBe(200);
    const s = res.body;
    expect(keys(s)).toEqual(SHOW_FULL_KEYS);
    const [aired] = await sql<{ n: number }>(app, 'select count(*)::int as n from episode where title_id = $1 and season_number > 0 and air_date <= current_date', [showRowId]);
    const [row] = await sql<{ release_date: string; episode_run_time_minutes: number; status: string }>(
      app,
      "select to_char(release_date, 'YYYY-MM-DD') as release_date, episode_run_time_minutes, status from title where id = $1",
      [showRowId],
    );
    expect(s).toMatchObject({
      tagline: null,
      overview: expect.stringMatching(/^Synthetic test data/),
      first_aired: `${row!.release_date}T00:00:00.000Z`,
      airs: { day: null, time: null, timezone: null },
      runtime: row!.episode_run_time_minutes,
      total_runtime: null,
      network: null,
      country: null,
      status: row!.status.toLowerCase(),
      rating: expect.any(Number),
      votes: expect.any(Number),
      comment_count: 0,
      aired_episodes: aired!.n,
      updated_at: isoTime,
      language: expect.any(String),
      available_translations: [],
      certification: expect.stringMatching(/^TV-/),
    });
    expect((s.genres as string[]).every((g) => /^[a-z0-9-]+$/.test(g))).toBe(true);
  });

  it('404 for an unknown show or a movie\'s id', async () => {
    for (const id of ['999999999', 'no-such-show', movieRowId]) {
      expect((await trakt(app, anon, 'GET', `/shows/${id}`)).status, id).toBe(404);
    }
  });
});

describe('seasons, a season, an episode', () => {
  it('GET /shows/{id}/seasons: {number, ids} per season, the season row id as trakt', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showRowId}/seasons`);
    expect(res.status).toBe(200);
    const rows = await sql<{ id: string; season_number: number }>(app, 'select id, season_number from season where title_id = $1 order by season_number', [showRowId]);
    expect(res.body).toStrictEqual(rows.map((r) => ({ number: r.season_number, ids: { trakt: Number(r.id), tvdb: null, tmdb: null } })));
  });

  it('extended=full,episodes: counts and details, and every season\'s episodes', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showRowId}/seasons?extended=full,episodes`);
    expect(res.status).toBe(200);
    const seasons = res.body as unknown as Json[];
    const counts = await sql<{ season_number: number; n: number; aired: number }>(
      app,
      'select season_number, count(*)::int as n, (count(*) filter (where air_date <= current_date))::int as aired from episode where title_id = $1 group by 1 order by 1',
      [showRowId],
    );
    expect(seasons.length).toBe(counts.length);
    seasons.forEach((s, i) => {
      expect(keys(s)).toEqual(['aired_episodes', 'episode_count', 'episodes', 'first_aired', 'ids', 'network', 'number', 'overview', 'rating', 'title', 'updated_at', 'votes']);
      expect(s).toMatchObject({ number: counts[i]!.season_number, episode_count: counts[i]!.n, aired_episodes: counts[i]!.aired, rating: 0, votes: 0, title: `Season ${i + 1}`, updated_at: null, network: null });
      const episodes = s.episodes as Json[];
      expect(episodes.length).toBe(counts[i]!.n);
      expect(keys(episodes[0])).toEqual(EPISODE_FULL_KEYS);
      expect(episodes.map((e) => e.number)).toEqual(episodes.map((_, k) => k + 1));
    });
  });

  it('extended=episodes alone: standard episodes', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showRowId}/seasons?extended=episodes`);
    const [first] = res.body as unknown as Json[];
    expect(keys(first)).toEqual(['episodes', 'ids', 'number']);
    expect((first!.episodes as Json[])[0]).toStrictEqual({ ...standardEpisode(1, 1), title: 'Pilot' });
  });

  it('GET /shows/{id}/seasons/{season}: the season\'s episodes, standard and full', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showSlug}/seasons/1`);
    expect(res.status).toBe(200);
    const episodes = res.body as unknown as Json[];
    expect(episodes[0]).toStrictEqual({ season: 1, number: 1, title: 'Pilot', ids: { trakt: await episodeRowId(1, 1), tvdb: null, imdb: null, tmdb: null } });
    const full = await trakt(app, anon, 'GET', `/shows/${showSlug}/seasons/1?extended=full`);
    const [e] = full.body as unknown as Json[];
    const [row] = await sql<{ air_date: string; runtime_minutes: number }>(
      app,
      "select to_char(air_date, 'YYYY-MM-DD') as air_date, runtime_minutes from episode where title_id = $1 and season_number = 1 and episode_number = 1",
      [showRowId],
    );
    expect(e).toStrictEqual({
      ...(episodes[0] as Json),
      number_abs: 1,
      overview: 'Synthetic test data.',
      first_aired: `${row!.air_date}T00:00:00.000Z`,
      updated_at: null,
      rating: 0,
      votes: 0,
      comment_count: 0,
      available_translations: [],
      runtime: row!.runtime_minutes,
      episode_type: null,
      original_title: null,
      after_credits: null,
      during_credits: null,
    });
  });

  it('GET /shows/{id}/seasons/{season}/episodes/{episode}', async () => {
    const res = await trakt(app, anon, 'GET', `/shows/${showRowId}/seasons/1/episodes/2`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ ...standardEpisode(1, 2), ids: { trakt: await episodeRowId(1, 2), tvdb: null, imdb: null, tmdb: null } });
    const full = await trakt(app, anon, 'GET', `/shows/${showRowId}/seasons/1/episodes/2?extended=full`);
    expect(keys(full.body)).toEqual(EPISODE_FULL_KEYS);
  });

  it('404 for an unknown show, season or episode', async () => {
    for (const path of [
      '/shows/999999999/seasons',
      `/shows/${movieRowId}/seasons`,
      `/shows/${showRowId}/seasons/99`,
      `/shows/${showRowId}/seasons/x`,
      `/shows/${showRowId}/seasons/1/episodes/999`,
      `/shows/${showRowId}/seasons/99/episodes/1`,
    ]) {
      const res = await trakt(app, anon, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
  });
});

describe('trending', () => {
  beforeAll(async () => {
    // Watched in the last 7 days: the roll-up (the trending job's work) counts them.
    const bob = await member(app, 'bob', ['profile:read']);
    const at = new Date(Date.now() - 3_600_000);
    await watch(app, alice.userId, MOVIE, at);
    await watch(app, bob.userId, MOVIE, at);
    await watch(app, alice.userId, SHOW, at, 1, 1);
    await rollUpTrending(app.db.orm.em.fork(), new Date());
  });

  it('GET /movies/trending: [{watchers, movie}] most watched first, with the pagination headers', async () => {
    const res = await trakt(app, anon, 'GET', '/movies/trending');
    expect(res.status).toBe(200);
    const items = res.body as unknown as Json[];
    const [{ n: movies }] = (await sql<{ n: number }>(app, "select count(*)::int as n from title where type = 'movie'")) as [{ n: number }];
    expect(pagination(res)).toEqual({ page: 1, limit: 10, pageCount: Math.ceil(Math.min(movies, 100) / 10), itemCount: Math.min(movies, 100) });
    expect(items[0]).toStrictEqual({ watchers: 2, movie: { title: 'Spirited Away', year: 2001, ids: { trakt: Number(movieRowId), slug: 'spirited-away-2001', imdb: 'tt0245429', tmdb: SPIRITED_AWAY } } });
    for (const item of items.slice(1)) {
      expect(keys(item)).toEqual(['movie', 'watchers']);
      expect(item.watchers).toBe(0);
    }
  });

  it('pages: page 2 of limit 2, and extended=full', async () => {
    const first = await trakt(app, anon, 'GET', '/movies/trending?page=1&limit=2');
    const second = await trakt(app, anon, 'GET', '/movies/trending?page=2&limit=2&extended=full');
    expect(second.status).toBe(200);
    expect(pagination(second)).toMatchObject({ page: 2, limit: 2, itemCount: pagination(first).itemCount });
    const items = second.body as unknown as Json[];
    expect(items.length).toBe(2);
    expect(keys(items[0]!.movie)).toEqual(MOVIE_FULL_KEYS);
    const ids = (r: typeof first) => (r.body as unknown as Json[]).map((i) => ((i.movie as Json).ids as Json).trakt);
    expect(ids(first).filter((id) => ids(second).includes(id))).toEqual([]);
  });

  it('GET /shows/trending: [{watchers, show}]', async () => {
    const res = await trakt(app, anon, 'GET', '/shows/trending?limit=1');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([{ watchers: 1, show: { title: expect.any(String), year: expect.any(Number), ids: expect.objectContaining({ trakt: Number(showRowId), slug: showSlug }) } }]);
    expect(pagination(res)).toEqual({ page: 1, limit: 1, pageCount: 3, itemCount: 3 });
  });

  it('400 for a page that is not a number', async () => {
    expect((await trakt(app, anon, 'GET', '/movies/trending?page=x')).status).toBe(400);
  });
});

describe('GET /shows/{id}/progress/watched', () => {
  let carol: Member;
  beforeAll(async () => {
    carol = await member(app, 'carol', ['profile:read', 'history:read']);
    const at = new Date('2024-03-01T10:00:00Z');
    await watch(app, carol.userId, SHOW, at, 1, 1);
    await watch(app, carol.userId, SHOW, new Date('2024-03-02T10:00:00Z'), 1, 3);
    await watch(app, carol.userId, SHOW, new Date('2024-03-03T10:00:00Z'), 1, 2);
  });

  it('answers aired and completed per season, the last and next episode', async () => {
    const res = await trakt(app, carol, 'GET', `/shows/${showSlug}/progress/watched`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const p = res.body;
    expect(keys(p)).toEqual(['aired', 'completed', 'hidden_seasons', 'last_episode', 'last_watched_at', 'next_episode', 'reset_at', 'seasons']);
    const [{ n: aired }] = (await sql<{ n: number }>(app, 'select count(*)::int as n from episode where title_id = $1 and season_number > 0 and air_date <= current_date', [showRowId])) as [{ n: number }];
    expect(p).toMatchObject({ aired, completed: 3, last_watched_at: '2024-03-03T10:00:00.000Z', reset_at: null, hidden_seasons: [] });
    const [s1] = p.seasons as Json[];
    expect(keys(s1)).toEqual(['aired', 'completed', 'episodes', 'number', 'title']);
    expect(s1).toMatchObject({ number: 1, title: 'Season 1', completed: 3 });
    expect((s1!.episodes as Json[]).slice(0, 4)).toStrictEqual([
      { number: 1, completed: true, last_watched_at: '2024-03-01T10:00:00.000Z' },
      { number: 2, completed: true, last_watched_at: '2024-03-03T10:00:00.000Z' },
      { number: 3, completed: true, last_watched_at: '2024-03-02T10:00:00.000Z' },
      { number: 4, completed: false, last_watched_at: null },
    ]);
    expect(p.last_episode).toStrictEqual({ ...standardEpisode(1, 3), ids: { trakt: await episodeRowId(1, 3), tvdb: null, imdb: null, tmdb: null } });
    expect(p.next_episode).toStrictEqual({ ...standardEpisode(1, 4), ids: { trakt: await episodeRowId(1, 4), tvdb: null, imdb: null, tmdb: null } });
  });

  it('last_activity=watched: the last episode is the one watched latest; extended=full details them', async () => {
    const res = await trakt(app, carol, 'GET', `/shows/${showRowId}/progress/watched?last_activity=watched&extended=full`);
    expect(res.status).toBe(200);
    expect(res.body.last_episode).toMatchObject({ season: 1, number: 2 });
    expect(res.body.next_episode).toMatchObject({ season: 1, number: 4 });
    expect(keys(res.body.next_episode)).toEqual(EPISODE_FULL_KEYS);
  });

  it('a show never watched: nothing completed, the first episode next', async () => {
    const res = await trakt(app, carol, 'GET', `/shows/${FIRST_SHOW + 1}/progress/watched`);
    // FIRST_SHOW + 1 is a movie database id, not a row id: look the show up by its row id.
    expect(res.status).toBe(404);
    const other = await titleId(app, { type: 'show', movieDbId: FIRST_SHOW + 1 });
    const fresh = await trakt(app, carol, 'GET', `/shows/${other}/progress/watched`);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ completed: 0, last_watched_at: null, last_episode: null, next_episode: { season: 1, number: 1 } });
  });

  it('401 without a token, 403 without history:read, 404 for an unknown show', async () => {
    expect((await trakt(app, anon, 'GET', `/shows/${showRowId}/progress/watched`)).status).toBe(401);
    const dave = await member(app, 'dave', ['profile:read']);
    const denied = await trakt(app, dave, 'GET', `/shows/${showRowId}/progress/watched`);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
    expect((await trakt(app, carol, 'GET', '/shows/999999999/progress/watched')).status).toBe(404);
  });
});

describe('GET /calendars/my/shows/{start_date}/{days}', () => {
  let erin: Member;
  let airDate: string;
  beforeAll(async () => {
    erin = await member(app, 'erin', ['profile:read', 'history:read']);
    // Following a show = having watched an episode of it (the platform calendar's rule).
    await watch(app, erin.userId, SHOW, new Date('2024-01-01T00:00:00Z'), 1, 1);
    const [row] = await sql<{ d: string }>(app, "select to_char(air_date, 'YYYY-MM-DD') as d from episode where title_id = $1 and season_number = 1 and episode_number = 3", [showRowId]);
    airDate = row!.d;
  });

  it('answers [{first_aired, episode, show}] of the followed shows in the window', async () => {
    const res = await trakt(app, erin, 'GET', `/calendars/my/shows/${airDate}/1`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toStrictEqual([
      {
        first_aired: `${airDate}T00:00:00.000Z`,
        episode: { ...standardEpisode(1, 3), ids: { trakt: await episodeRowId(1, 3), tvdb: null, imdb: null, tmdb: null } },
        show: { title: expect.any(String), year: expect.any(Number), ids: { trakt: Number(showRowId), slug: showSlug, tvdb: null, imdb: null, tmdb: FIRST_SHOW, tvrage: null } },
      },
    ]);
  });

  it('weekly episodes: 33 days hold the five weeks (read in two windows), extended=full details them', async () => {
    const res = await trakt(app, erin, 'GET', `/calendars/my/shows/${airDate}/33?extended=full`);
    expect(res.status).toBe(200);
    const items = res.body as unknown as Json[];
    const [{ n }] = (await sql<{ n: number }>(app, "select count(*)::int as n from episode where title_id = $1 and air_date >= $2::date and air_date < $2::date + 33", [showRowId, airDate])) as [{ n: number }];
    expect(items.length).toBe(n);
    expect(keys(items[0]!.episode)).toEqual(EPISODE_FULL_KEYS);
    expect(keys(items[0]!.show)).toEqual(SHOW_FULL_KEYS);
  });

  it('the default window: today and 7 days', async () => {
    for (const path of ['/calendars/my/shows', `/calendars/my/shows/${new Date().toISOString().slice(0, 10)}`]) {
      const res = await trakt(app, erin, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
    }
  });

  it('400 for days out of 1-33 or a bad date; 401 without a token', async () => {
    for (const path of [`/calendars/my/shows/${airDate}/0`, `/calendars/my/shows/${airDate}/34`, `/calendars/my/shows/${airDate}/x`, '/calendars/my/shows/2026-02-30/7']) {
      const res = await trakt(app, erin, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect((await trakt(app, anon, 'GET', `/calendars/my/shows/${airDate}/7`)).status).toBe(401);
  });
});

describe('/trakt/openapi.json', () => {
  it('lists the media routes', async () => {
    const paths = Object.keys((await call(app, '/trakt/openapi.json')).body.paths as object);
    for (const path of [
      '/movies/{id}', '/shows/{id}', '/movies/trending', '/shows/trending', '/shows/{id}/seasons', '/shows/{id}/seasons/{season}',
      '/shows/{id}/seasons/{season}/episodes/{episode}', '/shows/{id}/progress/watched', '/search/{type}', '/search/{id_type}/{id}',
      '/calendars/my/shows', '/calendars/my/shows/{start_date}', '/calendars/my/shows/{start_date}/{days}',
    ]) {
      expect(paths).toContain(path);
    }
  });
});
