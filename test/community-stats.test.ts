// Community statistics from real history and ratings (written through logWatches and setRating), with
// the clock pinned: streak, this month's counts, hours and genres, the weekly challenges of the current
// ISO week, challenges completed over every week, and XP. Then the endpoint's exact shape and scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEpisodes, resolveTitle } from '../src/core/catalog/resolve.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { setRating, type RatingScope } from '../src/core/library/ratings-write.ts';
import { communityStats } from '../src/core/profile/community-stats.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let viewer: Member;
const em = () => app.db.orm.em.fork();

// Wednesday of ISO week 2026-W12 (Monday 2026-03-16).
const NOW = new Date('2026-03-18T12:00:00Z');
/** Every part readable (the HTTP tests below cover tokens with fewer scopes). */
const ALL = { history: true, ratings: true };
const EPISODE_MINUTES = 44;

type Ids = { a: string; b: string; c: string; show: string; episodes: string[] };
let ids: Ids;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  viewer = await member(app, 'viewer', ['profile:read']);
  const movies = await query<{ movie_db_id: number }>(em(), {
    text: `select movie_db_id from title where type = 'movie' and movie_db_id <> $1 and runtime_minutes is not null order by movie_db_id limit 2`,
    params: [SPIRITED_AWAY],
  });
  const a = (await resolveTitle(em(), { type: 'movie', movieDbId: SPIRITED_AWAY }))!;
  const b = (await resolveTitle(em(), { type: 'movie', movieDbId: movies[0]!.movie_db_id }))!;
  const c = (await resolveTitle(em(), { type: 'movie', movieDbId: movies[1]!.movie_db_id }))!;
  const show = (await resolveTitle(em(), { type: 'show', movieDbId: FIRST_SHOW }))!;
  const episodes = await resolveEpisodes(em(), [1, 2, 3, 4, 5].map((n) => ({ titleId: show.id, season: 1, episode: n })));
  ids = { a: a.id, b: b.id, c: c.id, show: show.id, episodes: episodes.map((e) => e!.id) };
});
afterAll(() => app?.stop());

async function watch(userId: string, at: string, what: { movie: string; minutes: number } | { episode: number }) {
  const w =
    'movie' in what
      ? { titleId: what.movie, episodeId: null, season: null, episode: null, runtimeMinutes: what.minutes }
      : { titleId: ids.show, episodeId: ids.episodes[what.episode - 1]!, season: 1, episode: what.episode, runtimeMinutes: EPISODE_MINUTES };
  await transaction(em(), (tx) => logWatches(tx, userId, [{ ...w, watchedAt: new Date(at), source: 'api', clientId: null }]));
}

async function rate(userId: string, at: string, titleId: string, scope: RatingScope, season: number | null = null) {
  await transaction(em(), (tx) => setRating(tx, userId, { titleId, scope, season, episode: null }, 8, new Date(at)));
}

describe('communityStats with a pinned clock', () => {
  let userId: string;

  beforeAll(async () => {
    userId = (await member(app, 'binger', ['profile:read'])).userId;
    // Week of 2026-02-16: five episodes on four days and a movie on a fifth day.
    await watch(userId, '2026-02-16T20:00:00Z', { episode: 1 });
    await watch(userId, '2026-02-17T20:00:00Z', { episode: 2 });
    await watch(userId, '2026-02-18T20:00:00Z', { episode: 3 });
    await watch(userId, '2026-02-19T20:00:00Z', { episode: 4 });
    await watch(userId, '2026-02-19T22:00:00Z', { episode: 5 });
    await watch(userId, '2026-02-20T20:00:00Z', { movie: ids.a, minutes: 125 });
    // Last week (from 2026-03-09): a movie on Friday, an episode on Sunday.
    await watch(userId, '2026-03-13T20:00:00Z', { movie: ids.c, minutes: 100 });
    await watch(userId, '2026-03-15T20:00:00Z', { episode: 1 });
    // This week (from 2026-03-16): two movies and four episodes on three days.
    await watch(userId, '2026-03-16T10:00:00Z', { movie: ids.a, minutes: 125 });
    await watch(userId, '2026-03-16T21:00:00Z', { episode: 2 });
    await watch(userId, '2026-03-17T21:00:00Z', { episode: 3 });
    await watch(userId, '2026-03-17T21:50:00Z', { episode: 4 });
    await watch(userId, '2026-03-17T22:40:00Z', { episode: 5 });
    await watch(userId, '2026-03-18T09:00:00Z', { movie: ids.b, minutes: 95 });
    // Later today, after the pinned now: counts for nothing yet.
    await watch(userId, '2026-03-18T18:00:00Z', { movie: ids.c, minutes: 100 });
    await rate(userId, '2026-02-10T12:00:00Z', ids.show, 'season', 1);
    await rate(userId, '2026-03-10T12:00:00Z', ids.c, 'title');
    await rate(userId, '2026-03-17T08:00:00Z', ids.a, 'title');
    await rate(userId, '2026-03-17T08:05:00Z', ids.b, 'title');
    await rate(userId, '2026-03-17T08:10:00Z', ids.show, 'series');
  });

  it('counts this month\'s movies, episodes, whole hours (rounded down) and reviews up to now', async () => {
    const s = await communityStats(em(), userId, NOW, ALL);
    expect(s.monthMovies).toBe(3);
    expect(s.monthEpisodes).toBe(5);
    // 100 + 125 + 95 + 5 x 44 = 540 minutes would be 9 hours; the runtimes logged are 535 -> 8.
    expect(s.monthHours).toBe(Math.floor((100 + 125 + 95 + 5 * EPISODE_MINUTES) / 60));
    expect(s.monthReviews).toBe(4);
  });

  it('gives this month\'s genres, each watch once per genre of its title, most watched first, shares summing to 1', async () => {
    const genresOf = async (titleId: string) => (await query<{ genres: string[] }>(em(), { text: `select genres from title where id = $1`, params: [titleId] }))[0]!.genres;
    const tally = new Map<string, number>();
    for (const [titleId, times] of [[ids.c, 1], [ids.a, 1], [ids.b, 1], [ids.show, 5]] as const) {
      for (const g of await genresOf(titleId)) tally.set(g, (tally.get(g) ?? 0) + times);
    }
    const expected = [...tally].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    const total = expected.reduce((sum, [, n]) => sum + n, 0);
    const s = await communityStats(em(), userId, NOW, ALL);
    expect(s.monthGenres.map((g) => [g.name, g.count])).toEqual(expected);
    expect(expected.length).toBeGreaterThan(1);
    for (const g of s.monthGenres) expect(g.share).toBeCloseTo(g.count / total, 12);
    expect(s.monthGenres.reduce((sum, g) => sum + g.share, 0)).toBeCloseTo(1, 12);
  });

  it('judges this ISO week\'s challenges, progress capped at the target', async () => {
    const s = await communityStats(em(), userId, NOW, ALL);
    expect(s.weeklyChallenges).toEqual([
      { id: 'weekly-episodes', title: expect.any(String), description: expect.any(String), target: 5, progress: 4, xpReward: 50, completed: false },
      { id: 'weekly-movies', title: expect.any(String), description: expect.any(String), target: 2, progress: 2, xpReward: 40, completed: true },
      { id: 'weekly-ratings', title: expect.any(String), description: expect.any(String), target: 3, progress: 3, xpReward: 30, completed: true },
      { id: 'weekly-days', title: expect.any(String), description: expect.any(String), target: 4, progress: 3, xpReward: 60, completed: false },
    ]);
    expect(s.weeklyCompletedChallenges).toBe(2);
    // Saturday evening the movie after "now" has counted too: movies stay capped at 2 of 2.
    const later = await communityStats(em(), userId, new Date('2026-03-21T23:59:59Z'), ALL);
    expect(later.weeklyChallenges.find((c) => c.id === 'weekly-movies')?.progress).toBe(2);
    // A new week starts on Monday 00:00 UTC with nothing done.
    const monday = await communityStats(em(), userId, new Date('2026-03-23T00:00:00Z'), ALL);
    expect(monday.weeklyChallenges.map((c) => c.progress)).toEqual([0, 0, 0, 0]);
    expect(monday.weeklyCompletedChallenges).toBe(0);
  });

  it('counts challenges completed over every week and the XP score from the whole history', async () => {
    const s = await communityStats(em(), userId, NOW, ALL);
    // Week of Feb 16: episodes and days (50 + 60 XP); this week: movies and ratings (40 + 30 XP).
    expect(s.totalChallengesCompleted).toBe(4);
    // 4 movie watches x 10 + 10 episode watches x 3 + 5 ratings x 5 + 180 challenge XP.
    expect(s.xpScore).toBe(4 * 10 + 10 * 3 + 5 * 5 + 180);
    // Before any of it happened, everything is zero.
    const before = await communityStats(em(), userId, new Date('2026-01-01T00:00:00Z'), ALL);
    expect(before).toMatchObject({ streak: 0, monthMovies: 0, monthEpisodes: 0, monthHours: 0, monthReviews: 0, monthGenres: [], weeklyCompletedChallenges: 0, totalChallengesCompleted: 0, xpScore: 0 });
  });

  it('counts the streak of consecutive days ending today, or yesterday, and breaks it after a day without a watch', async () => {
    expect((await communityStats(em(), userId, NOW, ALL)).streak).toBe(4);
    expect((await communityStats(em(), userId, new Date('2026-03-19T23:59:59Z'), ALL)).streak).toBe(4);
    expect((await communityStats(em(), userId, new Date('2026-03-20T00:00:00Z'), ALL)).streak).toBe(0);
    // Only days up to now count: at 08:00 on the 18th the streak ends yesterday, the 17th.
    expect((await communityStats(em(), userId, new Date('2026-03-18T08:00:00Z'), ALL)).streak).toBe(3);
    expect((await communityStats(em(), userId, new Date('2026-02-20T23:00:00Z'), ALL)).streak).toBe(5);
  });
});

describe('GET /me/community-stats', () => {
  it('answers the exact shape, all zero for a user without history', async () => {
    const res = await platform(app, viewer.token, 'GET', '/me/community-stats');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'monthEpisodes', 'monthGenres', 'monthHours', 'monthMovies', 'monthReviews', 'streak', 'totalChallengesCompleted', 'weeklyChallenges', 'weeklyCompletedChallenges', 'xpScore',
    ]);
    expect(res.body).toEqual({
      streak: 0,
      monthMovies: 0,
      monthEpisodes: 0,
      monthHours: 0,
      monthReviews: 0,
      monthGenres: [],
      weeklyChallenges: expect.any(Array),
      weeklyCompletedChallenges: 0,
      totalChallengesCompleted: 0,
      xpScore: 0,
    });
    const challenges = res.body.weeklyChallenges as Record<string, unknown>[];
    expect(challenges).toHaveLength(4);
    for (const c of challenges) {
      expect(c).toEqual({ id: expect.any(String), title: expect.any(String), description: expect.any(String), target: expect.any(Number), progress: 0, xpReward: expect.any(Number), completed: false });
    }
  });

  it('counts what the user watched just now', async () => {
    const fan = await member(app, 'fan', ['profile:read', 'history:read']);
    await watch(fan.userId, new Date(Date.now() - 1000).toISOString(), { movie: ids.a, minutes: 125 });
    const res = await platform(app, fan.token, 'GET', '/me/community-stats');
    expect(res.body).toMatchObject({ streak: 1, monthMovies: 1, monthHours: 2, xpScore: 10 });
    const genres = res.body.monthGenres as { name: string; count: number; share: number }[];
    expect(genres.length).toBeGreaterThan(0);
    for (const g of genres) expect(g).toEqual({ name: expect.any(String), count: 1, share: 1 / genres.length });
  });

  it('counts watches only for a token with history:read and ratings only with ratings:read (profile:read alone: all zero)', async () => {
    const watcher = await member(app, 'private_watcher', ['profile:read', 'history:read', 'ratings:read', 'ratings:write']);
    await watch(watcher.userId, new Date(Date.now() - 1000).toISOString(), { movie: ids.a, minutes: 125 });
    const rated = await platform(app, watcher.token, 'POST', '/ratings', { movieDbId: SPIRITED_AWAY, type: 'movie', rating: 8 });
    expect(rated.status).toBe(200);
    const stats = async (scopes: string[]) => (await platform(app, await tokenWith(app, watcher, scopes), 'GET', '/me/community-stats')).body;
    const all = await stats(['profile:read', 'history:read', 'ratings:read']);
    expect(all).toMatchObject({ streak: 1, monthMovies: 1, monthHours: 2, monthReviews: 1 });
    expect(all.xpScore).toBeGreaterThan(0);
    const none = await stats(['profile:read']);
    expect(none).toMatchObject({ streak: 0, monthMovies: 0, monthEpisodes: 0, monthHours: 0, monthReviews: 0, monthGenres: [], weeklyCompletedChallenges: 0, totalChallengesCompleted: 0, xpScore: 0 });
    for (const c of none.weeklyChallenges as { progress: number }[]) expect(c.progress).toBe(0);
    expect(await stats(['profile:read', 'history:read'])).toMatchObject({ streak: 1, monthMovies: 1, monthReviews: 0 });
    expect(await stats(['profile:read', 'ratings:read'])).toMatchObject({ streak: 0, monthMovies: 0, monthHours: 0, monthGenres: [], monthReviews: 1 });
  });

  it('needs profile:read and a token, and takes no parameters', async () => {
    const other = await tokenWith(app, viewer, ['history:read', 'ratings:read']);
    expectError(await platform(app, other, 'GET', '/me/community-stats'), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    expectError(await platform(app, null, 'GET', '/me/community-stats'), 401, 'invalid_token');
    expectError(await platform(app, viewer.token, 'GET', '/me/community-stats?month=2026-03'), 400, 'invalid_request');
  });
});
