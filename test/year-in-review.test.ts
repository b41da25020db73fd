// GET /me/year-in-review over HTTP: the exact wire shape (and the same answer on /trpc), both scopes
// required (403 naming the missing one), the year's range (400 outside it), a user with nothing, and the
// default year. Then the figures against a recomputation from the rows: after writes through every
// history path (bulk sync with UTC offsets, single logs, time edits moving entries across New Year,
// deletes) and ratings given, changed and removed on both sides of it, each year's answer equals what
// the test computes itself from watch_history and user_rating, and the kept rows equal the rebuilt
// ones. With the clock pinned inside the data (the core function takes `now`), what lies after now is
// left out exactly: on New Year's first minute, in the middle of a day with watches on both sides, and
// while the ranking of the top titles is still moving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yearInReview } from '../src/core/profile/year-in-review.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { keptAgainstRebuilt } from './helpers/figures.ts';
import { call } from './helpers/http.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

const SCOPES = ['history:read', 'history:write', 'ratings:read', 'ratings:write'];
const DAY_MS = 86_400_000;
const TOP_KEYS = ['activeDays', 'busiestDay', 'busiestMonth', 'busiestWeekday', 'episodeWatches', 'firstWatch', 'lastWatch', 'longestStreak', 'minutes', 'movieWatches', 'ratings', 'topGenres', 'topTitles', 'watches', 'year'];
const HISTORY_KEYS = ['backdropPath', 'episode', 'episodeTitle', 'id', 'isAnime', 'movieDbId', 'name', 'posterPath', 'runtimeMinutes', 'season', 'stillPath', 'type', 'watchedAt', 'year'];
const CATALOG_KEYS = [
  'ageRating', 'backdropPath', 'backdropUrl', 'category', 'communityRating', 'genres', 'id', 'isAnime', 'movieDbId', 'name', 'originalLanguage', 'overview', 'popularity',
  'posterColor', 'posterColorIsDark', 'posterPath', 'posterUrl', 'releaseDate', 'runtimeMinutes', 'type', 'year',
];

let app: TestApp;
const em = () => app.db.orm.em.fork();
type Title = { id: string; type: 'movie' | 'show'; movie_db_id: number; runtime: number };
let movies: Title[];
let shows: Title[];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 10 });
  const titles = await sql<Title>(app, `select id::text, type, movie_db_id, coalesce(runtime_minutes, episode_run_time_minutes, 0) as runtime from title order by id`);
  movies = titles.filter((t) => t.type === 'movie');
  shows = titles.filter((t) => t.type === 'show');
});
afterAll(() => app?.stop());

const IMAGES = 'http://127.0.0.1:9/images';
const review = (token: string | null, query = '') => platform(app, token, 'GET', `/me/year-in-review${query}`);

// ---- the recomputation: every figure from the rows, with nothing of the service's but the table names

type Entry = { id: string; watched_at: Date; title_id: string; type: 'movie' | 'show'; movie_db_id: number; genres: string[]; minutes: number };
type Tally = { watches: number; minutes: number };

/** The first of the most (watches, then minutes); null when nothing has a watch. */
function most<T extends Tally>(xs: T[]): T | null {
  return xs.filter((x) => x.watches > 0).reduce<T | null>((best, x) => (!best || x.watches > best.watches || (x.watches === best.watches && x.minutes > best.minutes) ? x : best), null);
}

function tallyBy<K extends string | number>(entries: Entry[], key: (e: Entry) => K): Map<K, Tally> {
  const out = new Map<K, Tally>();
  for (const e of entries) {
    const t = out.get(key(e)) ?? { watches: 0, minutes: 0 };
    t.watches++;
    t.minutes += e.minutes;
    out.set(key(e), t);
  }
  return out;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const isoWeekday = (day: string) => ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** The year in review of `userId` as of `now`, computed here from watch_history and user_rating. */
async function recompute(userId: string, year: number, now: Date) {
  const start = new Date(Date.UTC(year, 0, 1));
  const end = new Date(Date.UTC(year + 1, 0, 1));
  const entries = await sql<Entry>(
    app,
    `select w.id::text, w.watched_at, w.title_id::text, t.type, t.movie_db_id, t.genres,
       coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0) as minutes
     from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
     where w.user_id = $1 and w.watched_at >= $2 and w.watched_at < $3 and w.watched_at <= $4
     order by w.watched_at, w.id`,
    [userId, start, end, now],
  );
  const [rated] = await sql<{ n: number }>(app, 'select count(*)::int as n from user_rating where user_id = $1 and rated_at >= $2 and rated_at < $3 and rated_at <= $4', [userId, start, end, now]);

  const days = [...tallyBy(entries, (e) => dayOf(e.watched_at))].sort(([a], [b]) => (a < b ? -1 : 1));
  const months = [...tallyBy(entries, (e) => dayOf(e.watched_at).slice(0, 7))].sort(([a], [b]) => (a < b ? -1 : 1));
  const weekdays = tallyBy(entries, (e) => isoWeekday(dayOf(e.watched_at)));
  const genres = new Map<string, number>();
  for (const e of entries) for (const g of e.genres) genres.set(g, (genres.get(g) ?? 0) + 1);
  // Runs of consecutive days, the longest (the earlier of equal ones).
  let streak: { days: number; firstDay: string; lastDay: string } | null = null;
  let run: { days: number; firstDay: string; lastDay: string } | null = null;
  for (const [day] of days) {
    const next: boolean = run !== null && Date.parse(day) - Date.parse(run.lastDay) === DAY_MS;
    run = next ? { firstDay: run!.firstDay, days: run!.days + 1, lastDay: day } : { days: 1, firstDay: day, lastDay: day };
    if (!streak || run.days > streak.days) streak = run;
  }
  const titles = [...tallyBy(entries, (e) => e.title_id)]
    .map(([id, t]) => ({ id, ...t, movieDbId: entries.find((e) => e.title_id === id)!.movie_db_id, type: entries.find((e) => e.title_id === id)!.type }))
    .sort((a, b) => b.watches - a.watches || b.minutes - a.minutes || Number(a.id) - Number(b.id));
  const busiestDay = most(days.map(([date, t]) => ({ date, weekday: isoWeekday(date), ...t })));
  const busiestMonth = most(months.map(([month, t]) => ({ month, ...t })));
  const busiestWeekday = most([1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, ...(weekdays.get(weekday) ?? { watches: 0, minutes: 0 }) })));
  return {
    year,
    watches: entries.length,
    minutes: entries.reduce((n, e) => n + e.minutes, 0),
    movieWatches: entries.filter((e) => e.type === 'movie').length,
    episodeWatches: entries.filter((e) => e.type === 'show').length,
    activeDays: days.length,
    ratings: rated!.n,
    topGenres: [...genres].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([name, count]) => ({ name, count })),
    busiestMonth,
    busiestDay,
    busiestWeekday,
    longestStreak: streak,
    topTitles: titles.slice(0, 10).map((t) => ({ movieDbId: t.movieDbId, type: t.type, watches: t.watches, minutes: t.minutes })),
    firstWatch: entries[0]?.id ?? null,
    lastWatch: entries.at(-1)?.id ?? null,
  };
}

/** An answer in the recomputation's terms: titles by id and counts, watches by entry id. */
function figuresOf(body: Record<string, unknown>) {
  const { topTitles, firstWatch, lastWatch, ...rest } = body as { topTitles: { title: { movieDbId: number; type: string }; watches: number; minutes: number }[]; firstWatch: { id: number } | null; lastWatch: { id: number } | null };
  return {
    ...rest,
    topTitles: topTitles.map((t) => ({ movieDbId: t.title.movieDbId, type: t.title.type, watches: t.watches, minutes: t.minutes })),
    firstWatch: firstWatch === null ? null : String(firstWatch.id),
    lastWatch: lastWatch === null ? null : String(lastWatch.id),
  };
}

async function expectYearAsRecomputed(m: Member, year: number): Promise<Record<string, unknown>> {
  const body = await ok(review(m.token, `?year=${year}`));
  expect(figuresOf(body), `${m.username} ${year}`).toEqual(await recompute(m.userId, year, new Date()));
  return body;
}

const EMPTY = (year: number) => ({
  year,
  watches: 0,
  minutes: 0,
  movieWatches: 0,
  episodeWatches: 0,
  activeDays: 0,
  ratings: 0,
  topGenres: [],
  busiestMonth: null,
  busiestDay: null,
  busiestWeekday: null,
  longestStreak: null,
  topTitles: [],
  firstWatch: null,
  lastWatch: null,
});

// ---- the wire

describe('GET /me/year-in-review: the wire', () => {
  let fan: Member;
  const movie = () => movies.find((t) => t.movie_db_id === SPIRITED_AWAY)!;
  const show = () => shows.find((t) => t.movie_db_id === FIRST_SHOW)!;

  beforeAll(async () => {
    fan = await member(app, 'yir_fan', SCOPES);
    // 2024: the movie on three days in a row (the last twice), two episodes on one of them, and a
    // watch on the first of January 2025 that belongs to 2025 only.
    await ok(bulk(app, fan.token, 'history', [
      { movie_db_id: SPIRITED_AWAY, watched_at: '2024-03-08T20:00:00Z' },
      { movie_db_id: SPIRITED_AWAY, watched_at: '2024-03-09T20:00:00Z' },
      { movie_db_id: SPIRITED_AWAY, watched_at: '2024-03-10T10:00:00Z' },
      { movie_db_id: SPIRITED_AWAY, watched_at: '2024-03-10T22:00:00Z' },
      { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: '2024-03-10T12:00:00Z' },
      { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: '2024-03-10T13:00:00Z' },
      { movie_db_id: SPIRITED_AWAY, watched_at: '2025-01-01T00:00:00Z' },
    ]));
    await ok(bulk(app, fan.token, 'ratings', [
      { movie_db_id: SPIRITED_AWAY, rating: 9, rated_at: '2024-03-10T23:00:00Z' },
      { movie_db_id: FIRST_SHOW, type: 'show', rating: 7, rated_at: '2023-12-31T23:59:59Z' },
    ]));
  });

  it('answers the exact shape: totals, genres, busiest month, day and weekday, the streak, top titles, first and latest watch', async () => {
    const body = await ok(review(fan.token, '?year=2024'));
    expect(Object.keys(body).sort()).toEqual(TOP_KEYS);
    const episodeMinutes = (await sql<{ m: number }>(app, `select coalesce(e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0) as m from episode e join title t on t.id = e.title_id where t.id = $1 and e.season_number = 1 and e.episode_number in (1, 2) order by e.episode_number`, [show().id])).map((r) => r.m);
    const m = movie().runtime;
    const episodes = episodeMinutes[0]! + episodeMinutes[1]!;
    const [movieGenres] = await sql<{ genres: string[] }>(app, 'select genres from title where id = $1', [movie().id]);
    expect(body).toMatchObject({
      year: 2024,
      watches: 6,
      minutes: 4 * m + episodes,
      movieWatches: 4,
      episodeWatches: 2,
      activeDays: 3,
      ratings: 1,
      busiestMonth: { month: '2024-03', watches: 6, minutes: 4 * m + episodes },
      busiestDay: { date: '2024-03-10', weekday: 7, watches: 4, minutes: 2 * m + episodes },
      busiestWeekday: { weekday: 7, watches: 4, minutes: 2 * m + episodes },
      longestStreak: { days: 3, firstDay: '2024-03-08', lastDay: '2024-03-10' },
    });
    // Every genre of the movie counts its four watches (the show's genres count two).
    for (const g of movieGenres!.genres.slice(0, 5)) expect((body.topGenres as { name: string; count: number }[]).find((x) => x.name === g)?.count).toBeGreaterThanOrEqual(4);
    for (const g of body.topGenres as object[]) expect(Object.keys(g).sort()).toEqual(['count', 'name']);
    const top = body.topTitles as { title: Record<string, unknown>; watches: number; minutes: number }[];
    expect(top.map((t) => Object.keys(t).sort())).toEqual([['minutes', 'title', 'watches'], ['minutes', 'title', 'watches']]);
    expect(Object.keys(top[0]!.title).sort()).toEqual(CATALOG_KEYS);
    expect(top.map((t) => [t.title.type, t.title.movieDbId, t.watches, t.minutes])).toEqual([['movie', SPIRITED_AWAY, 4, 4 * m], ['show', FIRST_SHOW, 2, episodes]]);
    expect(top[0]!.title).toMatchObject({ id: `movie-${SPIRITED_AWAY}`, category: 'movie', isAnime: false });
    const first = body.firstWatch as Record<string, unknown>;
    const last = body.lastWatch as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(HISTORY_KEYS);
    expect(first).toMatchObject({ type: 'movie', movieDbId: SPIRITED_AWAY, season: null, episode: null, watchedAt: '2024-03-08T20:00:00.000Z' });
    expect(last).toMatchObject({ type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2024-03-10T22:00:00.000Z' });
    expect(figuresOf(body)).toEqual(await recompute(fan.userId, 2024, new Date()));
  });

  it('answers the same on /trpc (platform.profile.yearInReview), as the client package calls it', async () => {
    const rest = await ok(review(fan.token, '?year=2024'));
    const res = await call(app, `/trpc/platform.profile.yearInReview?input=${encodeURIComponent(JSON.stringify({ year: 2024 }))}`, { token: fan.token });
    expect(res.status).toBe(200);
    expect((res.body.result as { data: unknown }).data).toEqual(rest);
  });

  it('a year without watches: zeros, empty lists and nulls; ratings count on their own', async () => {
    expect(await ok(review(fan.token, '?year=2023'))).toEqual({ ...EMPTY(2023), ratings: 1 });
    expect(await ok(review(fan.token, '?year=1800'))).toEqual(EMPTY(1800));
    expect(await ok(review(fan.token, '?year=2999'))).toEqual(EMPTY(2999));
    const nobody = await member(app, 'yir_nobody', SCOPES);
    const year = new Date().getUTCFullYear();
    expect(await ok(review(nobody.token))).toEqual(EMPTY(year));
    expect(await ok(review(nobody.token, '?year=2024'))).toEqual(EMPTY(2024));
  });

  it('defaults to the current UTC year', async () => {
    const year = new Date().getUTCFullYear();
    const at = new Date(Math.max(Date.UTC(year, 0, 1), Date.now() - 60_000)).toISOString();
    await ok(platform(app, fan.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: at }));
    const body = await ok(review(fan.token));
    expect(body.year).toBe(new Date().getUTCFullYear());
    expect(figuresOf(body)).toEqual(await recompute(fan.userId, body.year as number, new Date()));
    expect((body.lastWatch as { watchedAt: string }).watchedAt).toBe(at);
  });

  it('needs both history:read and ratings:read, naming the one missing; a token', async () => {
    const history = await tokenWith(app, fan, ['history:read', 'profile:read']);
    expectError(await review(history, '?year=2024'), 403, 'insufficient_scope', { required_scope: 'ratings:read' });
    const ratings = await tokenWith(app, fan, ['ratings:read']);
    expectError(await review(ratings, '?year=2024'), 403, 'insufficient_scope', { required_scope: 'history:read' });
    const neither = await tokenWith(app, fan, ['profile:read']);
    expectError(await review(neither), 403, 'insufficient_scope', { required_scope: 'history:read' });
    expectError(await review(null, '?year=2024'), 401, 'invalid_token');
    const both = await tokenWith(app, fan, ['history:read', 'ratings:read']);
    expect((await review(both, '?year=2024')).status).toBe(200);
  });

  it('refuses a year out of 1800..2999, not an integer, given twice, or another parameter: 400 invalid_request', async () => {
    for (const q of ['?year=1799', '?year=3000', '?year=2024.5', '?year=abc', '?year=0x7e8', '?year=-2024', '?year=99999999999999999999', '?year=2024&year=2025', '?years=2024', '?year[]=2024']) {
      const res = await review(fan.token, q);
      expect(res.status, q).toBe(400);
      expectError(res, 400, 'invalid_request');
    }
    const res = await call(app, `/trpc/platform.profile.yearInReview?input=${encodeURIComponent(JSON.stringify({ year: '2024' }))}`, { token: fan.token });
    expect(res.status).toBe(400);
    // An empty value is no value, as on every route of the facade: the current year.
    expect((await ok(review(fan.token, '?year='))).year).toBe(new Date().getUTCFullYear());
  });
});

// ---- the figures against the rows

describe('GET /me/year-in-review: the figures equal a recomputation from the rows', () => {
  let u: Member;

  beforeAll(async () => {
    u = await member(app, 'yir_boundary', SCOPES);
  });

  it('after bulk and single logs around New Year (UTC offsets included), time edits across it, deletes and ratings moved', async () => {
    const [m1, m2, m3] = movies;
    const [s1, s2] = shows;
    // The last days of 2023 and the first of 2024, every day watched (a run across New Year), some by an
    // offset that puts a local New Year's watch in the old year.
    await ok(bulk(app, u.token, 'history', [
      { movie_db_id: m1!.movie_db_id, watched_at: '2023-12-29T21:00:00Z' },
      { movie_db_id: m2!.movie_db_id, watched_at: '2023-12-30T21:00:00Z' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 1, watched_at: '2024-01-01T01:30:00+02:00' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 2, watched_at: '2023-12-31T23:59:59Z' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 3, watched_at: '2024-01-01T00:00:00Z' },
      { movie_db_id: m1!.movie_db_id, watched_at: '2024-01-01T05:00:00-08:00' },
      { movie_db_id: s2!.movie_db_id, season: 1, episode: 1, watched_at: '2024-01-02T20:00:00Z' },
      { movie_db_id: m3!.movie_db_id, watched_at: '2024-01-03T20:00:00Z', runtime_minutes: 33 },
      // A longer run later in 2024, and a lone day in 2025.
      ...[10, 11, 12, 13].map((d) => ({ movie_db_id: s2!.movie_db_id, season: 1, episode: d - 8, watched_at: `2024-03-${d}T19:00:00Z` })),
      { movie_db_id: m2!.movie_db_id, watched_at: '2025-06-01T12:00:00Z' },
    ]));
    await ok(platform(app, u.token, 'POST', '/watch-history', { type: 'show', movieDbId: s1!.movie_db_id, season: 1, watchedAt: '2023-12-31T22:00:00Z' }));
    await ok(platform(app, u.token, 'POST', '/watch-history', { type: 'movie', movieDbId: m3!.movie_db_id, watchedAt: '2024-12-31T23:30:00Z' }));
    await ok(bulk(app, u.token, 'ratings', [
      { movie_db_id: m1!.movie_db_id, rating: 8, rated_at: '2023-12-31T23:00:00Z' },
      { movie_db_id: m2!.movie_db_id, rating: 6, rated_at: '2024-01-01T00:30:00Z' },
      { movie_db_id: s1!.movie_db_id, type: 'show', rating: 9, rated_at: '2024-12-31T23:59:00Z' },
    ]));
    for (const year of [2023, 2024, 2025]) await expectYearAsRecomputed(u, year);

    // Time edits: the old year's last watch into the new one, a new year's watch into the old year (by an
    // offset), the new year's last watch into the year after, and one within a day; then deletes (one of
    // them cuts the run before New Year, one the March run).
    const entry = async (at: string) => (await sql<{ id: string }>(app, 'select id::text from watch_history where user_id = $1 and watched_at = $2 order by id limit 1', [u.userId, at]))[0]!.id;
    await ok(platform(app, u.token, 'PATCH', `/watch-history/${await entry('2023-12-31T23:59:59Z')}`, { watchedAt: '2024-01-04T20:00:00Z' }));
    await ok(platform(app, u.token, 'PATCH', `/watch-history/${await entry('2024-01-01T13:00:00Z')}`, { watchedAt: '2023-06-01T08:00:00+03:00' }));
    await ok(platform(app, u.token, 'PATCH', `/watch-history/${await entry('2024-12-31T23:30:00Z')}`, { watchedAt: '2025-01-01T00:10:00Z' }));
    await ok(platform(app, u.token, 'PATCH', `/watch-history/${await entry('2024-03-12T19:00:00Z')}`, { watchedAt: '2024-03-12T06:00:00Z' }));
    await ok(platform(app, u.token, 'DELETE', `/watch-history/${await entry('2023-12-30T21:00:00Z')}`));
    await ok(platform(app, u.token, 'DELETE', `/watch-history/${await entry('2024-03-11T19:00:00Z')}`));
    // A rating moved across New Year (a new rated_at), another removed.
    await ok(bulk(app, u.token, 'ratings', [
      { movie_db_id: m1!.movie_db_id, rating: 7, rated_at: '2024-01-05T10:00:00Z' },
      { movie_db_id: m2!.movie_db_id, remove: true },
    ]));
    for (const year of [2023, 2024, 2025]) await expectYearAsRecomputed(u, year);
    const y2024 = await ok(review(u.token, '?year=2024'));
    // The run across New Year counts its 2024 days only (1 to 4 January); the March run was cut in two.
    expect(y2024.longestStreak).toEqual({ days: 4, firstDay: '2024-01-01', lastDay: '2024-01-04' });
    // 2023 lost 30 December: its days are now 1 June, 29 and 31 December, each alone (the earliest wins).
    expect((await ok(review(u.token, '?year=2023'))).longestStreak).toEqual({ days: 1, firstDay: '2023-06-01', lastDay: '2023-06-01' });
    expect((await keptAgainstRebuilt(em, u.userId)).diff).toEqual([]);
  });

  it('ranks the top ten of more titles by watches, then minutes, then the catalog\'s order', async () => {
    const r = await member(app, 'yir_ranking', SCOPES);
    // Twelve titles watched 5, 5, 5, 4, ... 2, 2, 2 times on days through 2024, the most watched last: the
    // tenth place is shared by three titles, which minutes (then the catalog's order) tell apart.
    const titles = [...movies, ...shows].slice(0, 12);
    expect(titles).toHaveLength(12);
    const items: Record<string, unknown>[] = [];
    titles.forEach((t, i) => {
      for (let k = 0; k < 5 - Math.floor(i / 3); k++) {
        const at = new Date(Date.UTC(2024, 1, 1) + ((11 - i) * 20 + k) * DAY_MS + 18 * 3_600_000).toISOString();
        items.push(t.type === 'movie' ? { movie_db_id: t.movie_db_id, watched_at: at } : { movie_db_id: t.movie_db_id, season: 1, episode: 1 + (k % 3), watched_at: at });
      }
    });
    for (let i = 0; i < items.length; i += 100) await ok(bulk(app, r.token, 'history', items.slice(i, i + 100)));
    const body = await expectYearAsRecomputed(r, 2024);
    expect((body.topTitles as unknown[]).length).toBe(10);
    // With the clock pinned while the ranking still moves: titles the kept top ten leaves out (watched
    // early) lead, and those it holds have watches still to come.
    for (const day of [30, 61, 101, 161, 221]) {
      const now = new Date(Date.UTC(2024, 1, 1) + day * DAY_MS + 12 * 3_600_000);
      const got = await yearInReview(em(), r.userId, 2024, now, IMAGES);
      expect(figuresOf(JSON.parse(JSON.stringify(got))), `as of ${now.toISOString()}`).toEqual(await recompute(r.userId, 2024, now));
    }
    expect((await keptAgainstRebuilt(em, r.userId)).diff).toEqual([]);
  });

  it('with the clock pinned inside the data, leaves out exactly what lies after now', async () => {
    const p = await member(app, 'yir_pinned', SCOPES);
    const [m1, m2, m3] = movies;
    const [s1] = shows;
    await ok(bulk(app, p.token, 'history', [
      { movie_db_id: m1!.movie_db_id, watched_at: '2023-12-31T23:59:30Z' },
      { movie_db_id: m2!.movie_db_id, watched_at: '2024-01-01T00:00:00Z' },
      { movie_db_id: m3!.movie_db_id, watched_at: '2024-01-01T00:00:45Z' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 1, watched_at: '2024-01-01T23:00:00Z' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 2, watched_at: '2024-01-02T10:00:00Z' },
      { movie_db_id: m2!.movie_db_id, watched_at: '2024-01-02T20:00:00Z' },
      { movie_db_id: m2!.movie_db_id, watched_at: '2024-01-03T20:00:00Z' },
      { movie_db_id: m2!.movie_db_id, watched_at: '2024-01-04T20:00:00Z' },
      { movie_db_id: s1!.movie_db_id, season: 1, episode: 3, watched_at: '2024-07-01T10:00:00Z' },
    ]));
    await ok(bulk(app, p.token, 'ratings', [
      { movie_db_id: m1!.movie_db_id, rating: 8, rated_at: '2024-01-02T09:00:00Z' },
      { movie_db_id: m2!.movie_db_id, rating: 5, rated_at: '2024-01-02T13:00:00Z' },
    ]));
    // New Year's first minute (a watch at 00:00:00 counts, one 45 s later not); the middle of a day with
    // watches and ratings on both sides; a day whose only watch is yet to come (the streak stops the day
    // before); and the year before, with the new one wholly ahead.
    const pins = ['2024-01-01T00:00:30Z', '2024-01-02T12:00:00Z', '2024-01-03T19:00:00Z', '2024-01-04T21:00:00Z', '2023-12-31T23:59:45Z', '2023-06-01T00:00:00Z'];
    for (const pin of pins) {
      const now = new Date(pin);
      for (const year of [2023, 2024]) {
        const got = await yearInReview(em(), p.userId, year, now, IMAGES);
        expect(figuresOf(JSON.parse(JSON.stringify(got))), `${year} as of ${pin}`).toEqual(await recompute(p.userId, year, now));
      }
    }
    const early = await yearInReview(em(), p.userId, 2024, new Date('2024-01-03T19:00:00Z'), IMAGES);
    expect(early.longestStreak).toEqual({ days: 2, firstDay: '2024-01-01', lastDay: '2024-01-02' });
    expect(early.lastWatch?.watchedAt).toBe('2024-01-02T20:00:00.000Z');
  });
});
