// Seasons and episodes: GET /title/show/{id}/seasons, /seasons/{season}, /seasons/{season}/episodes/{episode}.
// Exact shapes, the user's watched state (history:read) and ratings (ratings:read) appearing only with
// their scope, 404 for what does not exist (movies have no seasons), 400 for bad numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { rate, sql, watch } from './helpers/title-fixtures.ts';

const show = { type: 'show' as const, movieDbId: FIRST_SHOW };
let app: TestApp;
let alice: Member;
let withHistory: string;
let withRatings: string;
let episodes: { season_number: number; episode_number: number; absolute_number: number | null; name: string; air_date: string | null; runtime_minutes: number | null }[];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice', ['profile:read']);
  withHistory = await tokenWith(app, alice, ['profile:read', 'history:read']);
  withRatings = await tokenWith(app, alice, ['profile:read', 'ratings:read']);
  await watch(app, alice.userId, show, new Date('2026-02-01T10:00:00Z'), 1, 1);
  await watch(app, alice.userId, show, new Date('2026-02-05T10:00:00Z'), 1, 1);
  await watch(app, alice.userId, show, new Date('2026-02-02T10:00:00Z'), 1, 2);
  await rate(app, alice.userId, show, 8, 'season', 1);
  await rate(app, alice.userId, show, 9, 'episode', 1, 2);
  episodes = await sql(
    app,
    `select e.season_number, e.episode_number, e.absolute_number, e.name, to_char(e.air_date, 'YYYY-MM-DD') as air_date, e.runtime_minutes
     from episode e join title t on t.id = e.title_id where t.type = 'show' and t.movie_db_id = $1 order by 1, 2`,
    [FIRST_SHOW],
  );
});
afterAll(() => app?.stop());

const get = (token: string | null, path: string) => platform(app, token, 'GET', path);
const today = () => new Date().toISOString().slice(0, 10);
const SHOW_REF = { movieDbId: FIRST_SHOW, name: expect.any(String), year: expect.any(Number), posterUrl: expect.any(String), isAnime: false };
const SEASON_KEYS = ['airDate', 'airedEpisodes', 'episodeCount', 'name', 'overview', 'posterUrl', 'seasonNumber', 'watchedEpisodes'];
const EPISODE_KEYS = ['absoluteNumber', 'airDate', 'aired', 'episodeNumber', 'name', 'overview', 'plays', 'runtimeMinutes', 'seasonNumber', 'stillUrl', 'watched', 'watchedAt'];

describe('season list', () => {
  it('lists every season with counts, and the watched counts with history:read', async () => {
    const res = await get(withHistory, `/title/show/${FIRST_SHOW}/seasons`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['seasons', 'show']);
    expect(res.body.show).toEqual(SHOW_REF);
    const seasons = res.body.seasons as Record<string, unknown>[];
    const numbers = [...new Set(episodes.map((e) => e.season_number))];
    expect(seasons.map((s) => s.seasonNumber)).toEqual(numbers);
    for (const s of seasons) {
      expect(Object.keys(s).sort()).toEqual(SEASON_KEYS);
      const mine = episodes.filter((e) => e.season_number === s.seasonNumber);
      expect(s).toEqual({
        seasonNumber: s.seasonNumber,
        name: `Season ${s.seasonNumber}`,
        overview: expect.any(String),
        airDate: mine[0]!.air_date,
        posterUrl: expect.any(String),
        episodeCount: mine.length,
        airedEpisodes: mine.filter((e) => e.air_date !== null && e.air_date <= today()).length,
        watchedEpisodes: s.seasonNumber === 1 ? 2 : 0,
      });
    }
  });

  it('has null watched counts without history:read', async () => {
    for (const token of [alice.token, withRatings]) {
      const seasons = (await get(token, `/title/show/${FIRST_SHOW}/seasons`)).body.seasons as Record<string, unknown>[];
      expect(seasons.length).toBeGreaterThan(0);
      expect(seasons.every((s) => s.watchedEpisodes === null)).toBe(true);
    }
  });
});

describe('season detail', () => {
  it('gives the season, its rating with ratings:read, and each episode with its watched state with history:read', async () => {
    const all = await tokenWith(app, alice, ['profile:read', 'history:read', 'ratings:read']);
    const res = await get(all, `/title/show/${FIRST_SHOW}/seasons/1`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['episodes', 'season', 'show']);
    expect(res.body.show).toEqual(SHOW_REF);
    expect(Object.keys(res.body.season as object).sort()).toEqual([...SEASON_KEYS, 'rating'].sort());
    expect(res.body.season).toMatchObject({ seasonNumber: 1, watchedEpisodes: 2, rating: 8 });
    const list = res.body.episodes as Record<string, unknown>[];
    const season1 = episodes.filter((e) => e.season_number === 1);
    expect(list).toHaveLength(season1.length);
    list.forEach((e, i) => {
      expect(Object.keys(e).sort()).toEqual(EPISODE_KEYS);
      const row = season1[i]!;
      expect(e).toMatchObject({ seasonNumber: 1, episodeNumber: row.episode_number, absoluteNumber: row.absolute_number, name: row.name, airDate: row.air_date, runtimeMinutes: row.runtime_minutes, aired: row.air_date !== null && row.air_date <= today() });
    });
    expect(list[0]).toMatchObject({ watched: true, watchedAt: '2026-02-05T10:00:00.000Z', plays: 2 });
    expect(list[1]).toMatchObject({ watched: true, watchedAt: '2026-02-02T10:00:00.000Z', plays: 1 });
    expect(list[2]).toMatchObject({ watched: false, watchedAt: null, plays: 0 });
  });

  it('hides the watched state without history:read and the rating without ratings:read', async () => {
    const a = await get(withRatings, `/title/show/${FIRST_SHOW}/seasons/1`);
    expect(a.body.season).toMatchObject({ rating: 8, watchedEpisodes: null });
    expect((a.body.episodes as Record<string, unknown>[]).every((e) => e.watched === null && e.watchedAt === null && e.plays === null)).toBe(true);
    const b = await get(withHistory, `/title/show/${FIRST_SHOW}/seasons/1`);
    expect(b.body.season).toMatchObject({ rating: null, watchedEpisodes: 2 });
    expect((b.body.episodes as Record<string, unknown>[])[0]).toMatchObject({ watched: true, plays: 2 });
  });
});

describe('episode detail', () => {
  it('gives one episode with its watched state and rating', async () => {
    const all = await tokenWith(app, alice, ['profile:read', 'history:read', 'ratings:read']);
    const res = await get(all, `/title/show/${FIRST_SHOW}/seasons/1/episodes/2`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['episode', 'show']);
    expect(res.body.show).toEqual(SHOW_REF);
    const row = episodes.find((e) => e.season_number === 1 && e.episode_number === 2)!;
    expect(res.body.episode).toEqual({
      seasonNumber: 1,
      episodeNumber: 2,
      absoluteNumber: row.absolute_number,
      name: row.name,
      overview: expect.any(String),
      airDate: row.air_date,
      runtimeMinutes: row.runtime_minutes,
      stillUrl: expect.any(String),
      aired: row.air_date !== null && row.air_date <= today(),
      watched: true,
      watchedAt: '2026-02-02T10:00:00.000Z',
      plays: 1,
      rating: 9,
    });
    const bare = await get(alice.token, `/title/show/${FIRST_SHOW}/seasons/1/episodes/2`);
    expect(bare.body.episode).toMatchObject({ watched: null, watchedAt: null, plays: null, rating: null });
  });
});

describe('errors', () => {
  const last = () => episodes[episodes.length - 1]!;

  it('401 without a token and 403 without profile:read on each route', async () => {
    const noProfile = await tokenWith(app, alice, ['history:read', 'ratings:read']);
    for (const path of [`/title/show/${FIRST_SHOW}/seasons`, `/title/show/${FIRST_SHOW}/seasons/1`, `/title/show/${FIRST_SHOW}/seasons/1/episodes/1`]) {
      expectError(await get(null, path), 401, 'invalid_token');
      expectError(await get(noProfile, path), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    }
  });

  it('404 not_found for an unknown show, season or episode, and for a movie', async () => {
    expectError(await get(alice.token, '/title/show/999999/seasons'), 404, 'not_found');
    expectError(await get(alice.token, '/title/show/999999/seasons/1'), 404, 'not_found');
    expectError(await get(alice.token, '/title/show/999999/seasons/1/episodes/1'), 404, 'not_found');
    expectError(await get(alice.token, `/title/show/${SPIRITED_AWAY}/seasons`), 404, 'not_found');
    expectError(await get(alice.token, `/title/movie/${SPIRITED_AWAY}/seasons`), 404, 'not_found');
    expectError(await get(alice.token, `/title/show/${FIRST_SHOW}/seasons/${last().season_number + 1}`), 404, 'not_found');
    expectError(await get(alice.token, `/title/show/${FIRST_SHOW}/seasons/${last().season_number}/episodes/${last().episode_number + 1}`), 404, 'not_found');
    expectError(await get(alice.token, `/title/show/${FIRST_SHOW}/seasons/${last().season_number + 1}/episodes/1`), 404, 'not_found');
  });

  it.each([
    ['id 0', '/title/show/0/seasons'],
    ['a non-numeric id', '/title/show/abc/seasons/1'],
    ['a negative season', `/title/show/${FIRST_SHOW}/seasons/-1`],
    ['a fractional season', `/title/show/${FIRST_SHOW}/seasons/1.5`],
    ['episode 0', `/title/show/${FIRST_SHOW}/seasons/1/episodes/0`],
    ['a non-numeric episode', `/title/show/${FIRST_SHOW}/seasons/1/episodes/x`],
    ['an unknown query parameter', `/title/show/${FIRST_SHOW}/seasons?page=2`],
  ])('400 invalid_request for %s', async (_what, path) => {
    expectError(await get(alice.token, path), 400, 'invalid_request');
  });

  it('season 0 (specials) is a valid number: 404 when the show has none', async () => {
    expectError(await get(alice.token, `/title/show/${FIRST_SHOW}/seasons/0`), 404, 'not_found');
  });
});
