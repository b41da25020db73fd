// GET /calendar: episodes of the shows the user follows (favourite, a status other than dropped, or a
// watched episode unless dropped) airing in [startDate, startDate + days), sorted by air date; exact
// shape, watched state only with history:read, bad dates and day counts, and the 60-a-minute limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, tokenWith, type Member } from './helpers/seed.ts';
import { setTitleState, sql, watch } from './helpers/title-fixtures.ts';

const showKey = (n: number) => ({ type: 'show' as const, movieDbId: FIRST_SHOW + n });
// Show n of the seed -> how alice relates to it, and whether that makes it followed.
const CASES = [
  { n: 0, what: 'status watching', followed: true },
  { n: 1, what: 'favourite only', followed: true },
  { n: 2, what: 'an episode watched', followed: true },
  { n: 3, what: 'an episode watched but dropped', followed: false },
  { n: 4, what: 'status planned', followed: true },
  { n: 5, what: 'nothing', followed: false },
  { n: 6, what: 'status completed', followed: true },
  { n: 7, what: 'dropped but a favourite', followed: true },
  { n: 8, what: 'status paused', followed: true },
];

let app: TestApp;
let alice: Member;
let withHistory: string;
type Ep = { movie_db_id: number; name: string; season_number: number; episode_number: number; episode_name: string; air_date: string; runtime_minutes: number | null };
let firstEpisodes: Map<number, Ep>;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: CASES.length });
  alice = await member(app, 'alice', ['profile:read']);
  withHistory = await tokenWith(app, alice, ['profile:read', 'history:read']);
  await setTitleState(app, alice.userId, showKey(0), { status: 'watching' });
  await setTitleState(app, alice.userId, showKey(1), { favourite: true });
  await watch(app, alice.userId, showKey(2), new Date('2026-01-10T20:00:00Z'), 1, 1);
  await watch(app, alice.userId, showKey(3), new Date('2026-01-10T20:00:00Z'), 1, 1);
  await setTitleState(app, alice.userId, showKey(3), { status: 'dropped' });
  await setTitleState(app, alice.userId, showKey(4), { status: 'planned' });
  await setTitleState(app, alice.userId, showKey(6), { status: 'completed' });
  await setTitleState(app, alice.userId, showKey(7), { favourite: true, status: 'dropped' });
  await setTitleState(app, alice.userId, showKey(8), { status: 'paused' });
  const rows = await sql<Ep>(
    app,
    `select t.movie_db_id, t.name, e.season_number, e.episode_number, e.name as episode_name, to_char(e.air_date, 'YYYY-MM-DD') as air_date, e.runtime_minutes
     from episode e join title t on t.id = e.title_id where t.type = 'show' and e.season_number = 1 and e.episode_number = 1`,
  );
  firstEpisodes = new Map(rows.map((r) => [r.movie_db_id, r]));
});
afterAll(() => app?.stop());

const get = (token: string | null, query: string) => platform(app, token, 'GET', `/calendar${query}`);
type Item = { show: { movieDbId: number }; season: number; episode: number; airDate: string; watched: boolean | null };
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('calendar', () => {
  it.each(CASES)('show $n ($what): followed = $followed', async ({ n, followed }) => {
    const ep = firstEpisodes.get(FIRST_SHOW + n)!;
    const res = await get(withHistory, `?startDate=${ep.air_date}&days=1`);
    expect(res.status).toBe(200);
    const mine = (res.body.items as Item[]).filter((i) => i.show.movieDbId === FIRST_SHOW + n);
    expect(mine.map((i) => [i.season, i.episode])).toEqual(followed ? [[1, 1]] : []);
  });

  it('answers the exact shape, sorted by air date, every followed episode in the window and nothing else', async () => {
    const followed = CASES.filter((c) => c.followed).map((c) => FIRST_SHOW + c.n);
    const start = firstEpisodes.get(FIRST_SHOW)!.air_date;
    const res = await get(withHistory, `?startDate=${start}&days=31`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['days', 'items', 'startDate']);
    expect(res.body).toMatchObject({ startDate: start, days: 31 });
    const expected = await sql<Ep>(
      app,
      `select t.movie_db_id, t.name, e.season_number, e.episode_number, e.name as episode_name, to_char(e.air_date, 'YYYY-MM-DD') as air_date, e.runtime_minutes
       from episode e join title t on t.id = e.title_id
       where t.type = 'show' and t.movie_db_id = any($1::int[]) and e.air_date >= $2::date and e.air_date < $2::date + 31
       order by e.air_date, t.name, t.movie_db_id, e.season_number, e.episode_number`,
      [followed, start],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.items).toEqual(
      expected.map((e) => ({
        show: { movieDbId: e.movie_db_id, name: e.name, year: expect.any(Number), posterUrl: expect.any(String), isAnime: false },
        season: e.season_number,
        episode: e.episode_number,
        episodeTitle: e.episode_name,
        airDate: e.air_date,
        runtimeMinutes: e.runtime_minutes,
        watched: false,
      })),
    );
  });

  it('says whether the user watched each episode only with history:read', async () => {
    const ep = firstEpisodes.get(FIRST_SHOW + 2)!;
    const mine = async (token: string) => ((await get(token, `?startDate=${ep.air_date}&days=1`)).body.items as Item[]).find((i) => i.show.movieDbId === FIRST_SHOW + 2);
    expect((await mine(withHistory))?.watched).toBe(true);
    expect((await mine(alice.token))?.watched).toBeNull();
  });

  it('defaults to today and 7 days, and shows a user without followed shows nothing', async () => {
    const res = await get(alice.token, '');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ startDate: new Date().toISOString().slice(0, 10), days: 7 });
    const bob = await member(app, 'bob', ['profile:read', 'history:read']);
    const start = firstEpisodes.get(FIRST_SHOW)!.air_date;
    expect((await get(bob.token, `?startDate=${start}&days=31`)).body).toEqual({ startDate: start, days: 31, items: [] });
  });

  it('counts days from startDate: days=1 is that day only', async () => {
    const ep = firstEpisodes.get(FIRST_SHOW)!;
    const day = (await get(alice.token, `?startDate=${ep.air_date}&days=1`)).body.items as Item[];
    expect(day.every((i) => i.airDate === ep.air_date)).toBe(true);
    const before = (await get(alice.token, `?startDate=${addDays(ep.air_date, -7)}&days=7`)).body.items as Item[];
    expect(before.every((i) => i.airDate < ep.air_date)).toBe(true);
  });
});

describe('calendar errors', () => {
  it('401 without a token, 403 without profile:read', async () => {
    expectError(await get(null, ''), 401, 'invalid_token');
    const noProfile = await tokenWith(app, alice, ['history:read']);
    expectError(await get(noProfile, ''), 403, 'insufficient_scope', { required_scope: 'profile:read' });
  });

  it('accepts days 1 and 31', async () => {
    expect((await get(alice.token, '?days=1')).status).toBe(200);
    expect((await get(alice.token, '?days=31')).status).toBe(200);
  });

  it.each([
    ['days 0', '?days=0'],
    ['days 32', '?days=32'],
    ['fractional days', '?days=1.5'],
    ['non-numeric days', '?days=week'],
    ['a day that does not exist', '?startDate=2026-02-30'],
    ['a date without leading zeros', '?startDate=2026-2-1'],
    ['a date-time', '?startDate=2026-02-01T00:00:00Z'],
    ['a word', '?startDate=today'],
    ['an unknown query parameter', '?endDate=2026-02-01'],
  ])('400 invalid_request for %s', async (_what, query) => {
    expectError(await get(alice.token, query), 400, 'invalid_request');
  });
});

describe('calendar rate limit', () => {
  it('allows 60 a minute per app and user, then 429 with Retry-After', async () => {
    const limited = await startTestApp({ RATE_LIMITS: 'on' });
    try {
      const m = await member(limited, 'limited', ['profile:read']);
      const answers = [];
      for (let i = 0; i < 61; i++) answers.push(await platform(limited, m.token, 'GET', '/calendar?days=1'));
      expect(answers.slice(0, 60).every((a) => a.status === 200)).toBe(true);
      expect(answers[60]!.status).toBe(429);
      expect(answers[60]!.body).toMatchObject({ error: 'rate_limited', message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
      expect(answers[60]!.headers.get('x-ratelimit-limit')).toBe('60');
      expect(Number(answers[60]!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});
