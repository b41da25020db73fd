// GET /me/stats: the user's totals, longest streak and the last 12 months by month, weekday and genre,
// from history written through the API (and one watch logged in core with a pinned older date), with its
// exact shape, what each scope shows, and its errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userStats } from '../src/core/profile/user-stats.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let fan: Member;

const ALL = { history: true, ratings: true };
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  fan = await member(app, 'stats_fan', ['profile:read', 'history:read', 'history:write', 'ratings:read', 'ratings:write']);
});
afterAll(() => app?.stop());

describe('GET /me/stats', () => {
  it('answers the exact shape, all zero for a user without history', async () => {
    const body = await ok(platform(app, fan.token, 'GET', '/me/stats'));
    expect(Object.keys(body).sort()).toEqual(['animeTitles', 'episodes', 'genres', 'longestStreak', 'minutes', 'months', 'movies', 'ratings', 'shows', 'showsCompleted', 'watches', 'weekdays']);
    expect(body).toMatchObject({ watches: 0, minutes: 0, movies: 0, shows: 0, episodes: 0, animeTitles: 0, showsCompleted: 0, longestStreak: 0, ratings: 0, genres: [] });
    const months = body.months as { month: string; watches: number; minutes: number }[];
    expect(months).toHaveLength(12);
    expect(months.at(-1)).toEqual({ month: monthOf(new Date()), watches: 0, minutes: 0 });
    expect(body.weekdays).toEqual([1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, watches: 0, minutes: 0 })));
  });

  it('counts the watches logged, by month, weekday and genre', async () => {
    const now = new Date();
    const at = new Date(now.getTime() - 60_000).toISOString();
    const movie = await ok(platform(app, fan.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: at }));
    const minutes = (movie.items as { runtimeMinutes: number }[])[0]!.runtimeMinutes;
    await ok(platform(app, fan.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: at }));
    await ok(platform(app, fan.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 }));
    const body = await ok(platform(app, fan.token, 'GET', '/me/stats'));
    expect(body).toMatchObject({ watches: 2, movies: 1, shows: 1, episodes: 1, longestStreak: 1, ratings: 1 });
    const months = body.months as { month: string; watches: number; minutes: number }[];
    expect(months.at(-1)).toEqual({ month: monthOf(now), watches: 2, minutes: body.minutes });
    expect(body.minutes).toBeGreaterThanOrEqual(minutes);
    const weekday = ((new Date(at).getUTCDay() + 6) % 7) + 1;
    expect((body.weekdays as { weekday: number; watches: number }[]).find((w) => w.weekday === weekday)?.watches).toBe(2);
    const genres = body.genres as { name: string; count: number }[];
    expect(genres.length).toBeGreaterThan(0);
    for (const g of genres) expect(g).toEqual({ name: expect.any(String), count: expect.any(Number) });
  });

  it('keeps a month older than twelve out of the months but in the totals', async () => {
    const s = await userStats(app.db.orm.em.fork(), fan.userId, new Date(Date.now() + 400 * 86_400_000), ALL);
    expect(s.months.reduce((n, m) => n + m.watches, 0)).toBe(0);
    expect(s.genres).toEqual([]);
    expect(s.watches).toBe(2);
  });

  it('counts watches only with history:read and ratings only with ratings:read', async () => {
    const only = await ok(platform(app, await tokenWith(app, fan, ['profile:read']), 'GET', '/me/stats'));
    expect(only).toMatchObject({ watches: 0, minutes: 0, movies: 0, longestStreak: 0, ratings: null, genres: [] });
    const ratings = await ok(platform(app, await tokenWith(app, fan, ['profile:read', 'ratings:read']), 'GET', '/me/stats'));
    expect(ratings).toMatchObject({ watches: 0, ratings: 1 });
  });

  it('needs profile:read and a token, and takes no parameters', async () => {
    expectError(await platform(app, await tokenWith(app, fan, ['history:read']), 'GET', '/me/stats'), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    expectError(await platform(app, null, 'GET', '/me/stats'), 401, 'invalid_token');
    expectError(await platform(app, fan.token, 'GET', '/me/stats?months=3'), 400, 'invalid_request');
  });
});
