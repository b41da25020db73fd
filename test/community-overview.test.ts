// GET /api/public/v1/community/overview over real HTTP: figures computed from real history and likes
// (rolling 7 and 30 day windows, most watched titles by watchers then watches, top lists by likes with
// private profiles and private lists left out), the exact shape, the public bucket's headers, and the
// short in-process cache (`generatedAt`, Cache-Control) on a second app with caching on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEpisodes, resolveTitles } from '../src/core/catalog/resolve.ts';
import { rollUpDailyStats } from '../src/core/community/daily-stats.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import * as http from './helpers/http.ts';
import { makeUser } from './helpers/oauth.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
const TOY_STORY = 862;
const DAY = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCOPES = ['profile:write', 'lists:read', 'lists:write'];
const OVERVIEW_KEYS = ['activeUsers', 'daily', 'generatedAt', 'mostWatchedThisWeek', 'topLists', 'watchesThisWeek'];
const LIST_KEYS = ['description', 'externalSource', 'id', 'isCollaborative', 'isDynamicList', 'isPublic', 'isWatchlist', 'itemCount', 'likeCount', 'name', 'ownerUsername', 'previewPosters'];

const overview = (target = app) => http.call(target, '/api/public/v1/community/overview');

async function logWatch(target: TestApp, userId: string, type: 'movie' | 'show', movieDbId: number, at: Date, season?: number, episode?: number) {
  const em = target.db.orm.em.fork();
  const [title] = await resolveTitles(em, [{ type, movieDbId }]);
  const [ep] = season === undefined ? [] : await resolveEpisodes(em, [{ titleId: title!.id, season, episode }]);
  await transaction(em, (tx) =>
    logWatches(tx, userId, [{ titleId: title!.id, episodeId: ep?.id ?? null, season: season ?? null, episode: episode ?? null, watchedAt: at, runtimeMinutes: null, source: 'api', clientId: null }]),
  );
}

const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));
const ago = (days: number) => new Date(Date.now() - days * DAY);

beforeAll(async () => {
  // Caching off: each answer is computed from the data as it is now.
  app = await startTestApp({ RATE_LIMITS: 'on', CATALOG_CACHE_SECONDS: '0' });
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

describe('an empty community', () => {
  it('answers zeros and empty arrays', async () => {
    const res = await overview();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(OVERVIEW_KEYS);
    expect(res.body).toEqual({ generatedAt: expect.stringMatching(ISO), activeUsers: { last7Days: 0, last30Days: 0 }, watchesThisWeek: 0, mostWatchedThisWeek: [], topLists: [], daily: [] });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('cache-control')).toBeNull();
  });
});

describe('figures from real history and likes', () => {
  let lists: Record<string, number>;
  beforeAll(async () => {
    const [u1, u2, u3, u4, hidden] = await Promise.all(['u1_co', 'u2_co', 'u3_co', 'u4_co', 'hidden_co'].map((n) => member(app, n, SCOPES)));
    // This week: u1 four watches (two movies, two episodes), u2 Spirited Away twice, hidden one movie.
    await logWatch(app, u1!.userId, 'movie', SPIRITED_AWAY, ago(2));
    await logWatch(app, u1!.userId, 'movie', TOY_STORY, ago(3));
    await logWatch(app, u1!.userId, 'show', FIRST_SHOW, ago(1), 1, 1);
    await logWatch(app, u1!.userId, 'show', FIRST_SHOW, ago(0.5), 1, 2);
    await logWatch(app, u2!.userId, 'movie', SPIRITED_AWAY, ago(1));
    await logWatch(app, u2!.userId, 'movie', SPIRITED_AWAY, ago(5));
    await logWatch(app, hidden!.userId, 'movie', TOY_STORY, ago(6));
    // This month only (u3), and older than 30 days (u4): neither counts this week.
    await logWatch(app, u3!.userId, 'movie', TOY_STORY, ago(10));
    await logWatch(app, u4!.userId, 'show', FIRST_SHOW, ago(40), 1, 1);

    const make = async (m: Member, name: string, isPublic: boolean) => (await call(m, 'POST', '/lists', { name, isPublic })).body.id as number;
    lists = {
      popular: await make(u1!, 'Popular', true),
      liked: await make(u2!, 'Liked once', true),
      unliked: await make(u2!, 'Nobody likes me', true),
      privateList: await make(u1!, 'Private but liked', false),
      hiddenOwner: await make(hidden!, 'Owner is private', true),
    };
    const like = async (m: Member, id: number) => expect((await call(m, 'POST', `/lists/${id}/like`)).status).toBe(200);
    await like(u2!, lists.popular!);
    await like(u3!, lists.popular!);
    await like(u1!, lists.liked!);
    await like(u1!, lists.privateList!); // the owner may like a private list
    for (const m of [u1!, u2!, u3!]) await like(m, lists.hiddenOwner!);
    // Liked while public; once the profile is private, nobody else can reach the list (404), and its likes stay.
    expect((await call(hidden!, 'PATCH', '/me/profile', { privacy: 'private' })).status).toBe(200);
  });

  it('counts active users over 7 and 30 days and this week\'s watches', async () => {
    const { body } = await overview();
    expect(body.activeUsers).toEqual({ last7Days: 3, last30Days: 4 });
    expect(body.watchesThisWeek).toBe(7);
  });

  it('ranks this week\'s titles by watchers, then watches, as catalog items', async () => {
    const items = (await overview()).body.mostWatchedThisWeek as Array<{ title: Record<string, unknown>; watchers: number; watches: number }>;
    for (const i of items) expect(Object.keys(i).sort()).toEqual(['title', 'watchers', 'watches']);
    expect(items.map((i) => [i.title.id, i.watchers, i.watches])).toEqual([
      [`movie-${SPIRITED_AWAY}`, 2, 3],
      [`movie-${TOY_STORY}`, 2, 2],
      [`show-${FIRST_SHOW}`, 1, 2],
    ]);
    expect(items[0]!.title).toMatchObject({ movieDbId: SPIRITED_AWAY, type: 'movie', name: 'Spirited Away', posterUrl: expect.stringMatching(/\/w500\//) });
  });

  it('lists public lists by likes: never private lists, lists of private profiles or unliked lists', async () => {
    const top = (await overview()).body.topLists as Array<Record<string, unknown>>;
    for (const l of top) expect(Object.keys(l).sort()).toEqual(LIST_KEYS);
    expect(top.map((l) => [l.id, l.likeCount])).toEqual([[lists.popular, 2], [lists.liked, 1]]);
    expect(top[0]).toMatchObject({ name: 'Popular', ownerUsername: 'u1_co', isPublic: true });
  });
});

describe('the daily statistics roll-up (stats-rollup job)', () => {
  const dayOf = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
  /** The expected rows, grouped in JS from the stored rows themselves (an independent count). */
  async function expected(now: Date) {
    const em = app.db.orm.em.fork();
    const watches = await query<{ user_id: string; watched_at: Date }>(em, { text: 'select user_id, watched_at from watch_history where watched_at <= $1', params: [now] });
    const users = await query<{ created_at: Date }>(em, { text: 'select created_at from app_user where created_at <= $1', params: [now] });
    const ratings = await query<{ rated_at: Date }>(em, { text: 'select rated_at from user_rating where rated_at <= $1', params: [now] });
    const days = Array.from({ length: 30 }, (_, i) => dayOf(new Date(now.getTime() - (29 - i) * DAY)));
    return days.map((date) => ({
      date,
      activeUsers: new Set(watches.filter((w) => dayOf(w.watched_at) === date).map((w) => w.user_id)).size,
      watches: watches.filter((w) => dayOf(w.watched_at) === date).length,
      newUsers: users.filter((u) => dayOf(u.created_at) === date).length,
      ratings: ratings.filter((r) => dayOf(r.rated_at) === date).length,
    }));
  }

  it('fills the last 30 days on a first run, and the overview serves them oldest first', async () => {
    const now = new Date();
    expect(await rollUpDailyStats(app.db.orm.em.fork(), now)).toEqual({ days: 30 });
    const { body } = await overview();
    expect(body.daily).toEqual(await expected(now));
    expect((body.daily as Array<{ watches: number }>).reduce((n, d) => n + d.watches, 0)).toBe(8); // 9 watches, one 40 days ago
  });

  it('recomputes only today and yesterday afterwards: older days are final', async () => {
    const member5 = await member(app, 'late_co', SCOPES);
    await logWatch(app, member5.userId, 'movie', SPIRITED_AWAY, ago(5)); // a day already rolled up
    await logWatch(app, member5.userId, 'movie', TOY_STORY, ago(0.0005)); // today, a minute ago
    const now = new Date();
    expect(await rollUpDailyStats(app.db.orm.em.fork(), now)).toEqual({ days: 2 });
    const daily = (await overview()).body.daily as Array<{ date: string; watches: number; activeUsers: number; newUsers: number }>;
    const fresh = await expected(now);
    expect(daily.slice(-2)).toEqual(fresh.slice(-2));
    const fiveDaysAgo = daily.find((d) => d.date === dayOf(ago(5)))!;
    expect(fiveDaysAgo.watches).toBe(fresh.find((d) => d.date === fiveDaysAgo.date)!.watches - 1);
    // The same run again changes nothing.
    expect(await rollUpDailyStats(app.db.orm.em.fork(), now)).toEqual({ days: 2 });
    expect((await overview()).body.daily).toEqual(daily);
  });
});

describe('the cache', () => {
  let cached: TestApp;
  beforeAll(async () => {
    cached = await startTestApp();
    await seedCatalog(cached, { shows: 1 });
  });
  afterAll(() => cached?.stop());

  it('keeps an answer for CATALOG_CACHE_SECONDS and says when it was computed', async () => {
    const first = await overview(cached);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const user = await makeUser(cached, 'cache_co');
    await logWatch(cached, user.id, 'movie', SPIRITED_AWAY, ago(1));
    const second = await overview(cached);
    expect(second.body).toEqual(first.body);
    expect(second.body.watchesThisWeek).toBe(0);
  });
});
