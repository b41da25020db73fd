// Trophies: the exact shapes of GET /me/trophies and /me/trophies/summary, their scope, progress against
// known history, and earning: by real history writes (POST /watch-history, POST /sync/history) through
// the trophy job, with its notification read through the notifications API; earned once (job run twice,
// two jobs at once, a read racing the job), never taken back, in the change feed, and never skipped when
// a history write commits late (services mode: the embedded database runs one transaction at a time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { resolveEpisodes, resolveTitle } from '../src/core/catalog/resolve.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { createLogger } from '../src/core/log.ts';
import { followTrophyChanges, READ_PAGE } from '../src/core/trophies/follow.ts';
import { startTrophyJob } from './helpers/jobs.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { bulk, readFeed, settled } from './helpers/sync-client.ts';
import { rate } from './helpers/title-fixtures.ts';

let app: TestApp;
const em = () => app.db.orm.em.fork();
const DAY = 86_400_000;

/** Movies of the fixture (movie_db_id), Spirited Away first. */
let movies: number[];

const TROPHY_IDS = [
  'first-watch', 'hours-100', 'hours-1000', 'movies-10', 'movies-100', 'movies-1000', 'episodes-100', 'episodes-1000',
  'show-completed', 'shows-completed-10', 'anime-1', 'anime-10', 'anime-50', 'ratings-10', 'ratings-100', 'first-list',
  'list-10-items', 'list-100-items', 'streak-7', 'streak-30', 'streak-365',
];
const TROPHY_KEYS = ['category', 'description', 'earned', 'earnedAt', 'id', 'metric', 'name', 'points', 'progress', 'target', 'tier'];

beforeAll(async () => {
  // The job is driven by hand here (followTrophyChanges; test apps run no trophy timer), but one test.
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  const rows = await query<{ movie_db_id: number }>(em(), { text: `select movie_db_id from title where type = 'movie' order by movie_db_id <> $1, movie_db_id`, params: [SPIRITED_AWAY] });
  movies = rows.map((r) => r.movie_db_id);
});
afterAll(() => app?.stop());

/** Runs the trophy job once the users' writes are below the feed's horizon (other test files' open transactions hold it back on a shared server). */
async function runJob(...userIds: string[]) {
  for (const u of userIds) await settled(app, u);
  return followTrophyChanges(em());
}

type Item = Record<string, unknown> & { id: string; progress: number; earned: boolean; earnedAt: string | null };

async function trophies(token: string): Promise<Map<string, Item>> {
  const res = await platform(app, token, 'GET', '/me/trophies');
  expect(res.status).toBe(200);
  return new Map((res.body.items as Item[]).map((t) => [t.id, t]));
}

async function inbox(token: string) {
  const list = await platform(app, token, 'GET', '/me/notifications');
  const count = await platform(app, token, 'GET', '/me/notifications/unread-count');
  expect([list.status, count.status]).toEqual([200, 200]);
  return { items: list.body.items as Array<Record<string, unknown>>, unread: count.body };
}

/** One watch through the core write path (the one every writer uses), with a known runtime. */
async function watch(userId: string, movieDbId: number, at: string, minutes: number) {
  const t = (await resolveTitle(em(), { type: 'movie', movieDbId }))!;
  await transaction(em(), (tx) => logWatches(tx, userId, [{ titleId: t.id, episodeId: null, season: null, episode: null, watchedAt: new Date(at), runtimeMinutes: minutes, source: 'api', clientId: null }]));
}

async function watchEpisodes(userId: string, show: number, episodes: number[], at: string, minutes: number) {
  const t = (await resolveTitle(em(), { type: 'show', movieDbId: show }))!;
  const eps = await resolveEpisodes(em(), episodes.map((n) => ({ titleId: t.id, season: 1, episode: n })));
  await transaction(em(), (tx) =>
    logWatches(tx, userId, eps.map((e, i) => ({ titleId: t.id, episodeId: e!.id, season: 1, episode: episodes[i]!, watchedAt: new Date(at), runtimeMinutes: minutes, source: 'api' as const, clientId: null }))),
  );
}

describe('GET /me/trophies and GET /me/trophies/summary', () => {
  let newbie: Member;
  beforeAll(async () => {
    newbie = await member(app, 'newbie', ['trophies:read']);
  });

  it('lists every trophy in catalog order with the exact shape', async () => {
    const res = await platform(app, newbie.token, 'GET', '/me/trophies');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['items']);
    const items = res.body.items as Item[];
    expect(items.map((t) => t.id)).toEqual(TROPHY_IDS);
    for (const t of items) expect(Object.keys(t).sort()).toEqual(TROPHY_KEYS);
    expect(items[0]).toEqual({
      id: 'first-watch', name: 'First watch', description: 'Log your first watch', category: 'watching', tier: 'bronze',
      points: 10, metric: 'watches', target: 1, progress: 0, earned: false, earnedAt: null,
    });
    expect(items.find((t) => t.id === 'streak-365')).toEqual({
      id: 'streak-365', name: 'Year streak', description: 'Watch something 365 days in a row', category: 'streaks', tier: 'platinum',
      points: 100, metric: 'longest_streak', target: 365, progress: 0, earned: false, earnedAt: null,
    });
  });

  it('sums the catalog in the summary', async () => {
    const res = await platform(app, newbie.token, 'GET', '/me/trophies/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      earned: 0,
      total: 21,
      points: 0,
      totalPoints: 695,
      byTier: { bronze: { earned: 0, total: 7 }, silver: { earned: 0, total: 7 }, gold: { earned: 0, total: 5 }, platinum: { earned: 0, total: 2 } },
      byCategory: {
        watching: { earned: 0, total: 3 }, movies: { earned: 0, total: 3 }, shows: { earned: 0, total: 4 }, anime: { earned: 0, total: 3 },
        ratings: { earned: 0, total: 2 }, lists: { earned: 0, total: 3 }, streaks: { earned: 0, total: 3 },
      },
      lastEarnedAt: null,
    });
  });

  it('needs trophies:read (403 insufficient_scope), a token (401), and no query parameters (400)', async () => {
    const other = await tokenWith(app, newbie, ['profile:read', 'history:read', 'notifications:read']);
    for (const path of ['/me/trophies', '/me/trophies/summary']) {
      expectError(await platform(app, other, 'GET', path), 403, 'insufficient_scope', { required_scope: 'trophies:read' });
      expectError(await platform(app, null, 'GET', path), 401, 'invalid_token');
      expectError(await platform(app, newbie.token, 'GET', `${path}?earned=true`), 400, 'invalid_request');
    }
  });
});

describe('progress from known history, ratings and lists', () => {
  let tracker: Member;
  beforeAll(async () => {
    tracker = await member(app, 'tracker', ['trophies:read', 'lists:write', 'notifications:read']);
    const [a, b, c] = movies as [number, number, number];
    // Movie c counts as anime (the fixture has none).
    await query(em(), { text: `update title set is_anime = true, category = 'anime' where type = 'movie' and movie_db_id = $1`, params: [c] });
    // Days 1, 2, 3 in a row, then day 5: the longest streak is 3. A is watched twice (one movie, two
    // watches); 545 minutes in all: 9 hours.
    await watch(tracker.userId, a, '2026-01-01T20:00:00Z', 100);
    await watch(tracker.userId, a, '2026-01-02T20:00:00Z', 100);
    await watch(tracker.userId, b, '2026-01-03T20:00:00Z', 120);
    await watchEpisodes(tracker.userId, FIRST_SHOW, [1, 2, 3], '2026-01-03T22:00:00Z', 45);
    await watch(tracker.userId, c, '2026-01-05T20:00:00Z', 90);
    await rate(app, tracker.userId, { type: 'movie', movieDbId: a }, 8, 'title');
    await rate(app, tracker.userId, { type: 'movie', movieDbId: b }, 6, 'title');
    const list = await platform(app, tracker.token, 'POST', '/lists', { name: 'Favourites', description: '', isPublic: false });
    expect(list.status).toBe(200);
    const added = await platform(app, tracker.token, 'POST', `/lists/${list.body.id}/items`, { items: [{ type: 'movie', movieDbId: a }, { type: 'movie', movieDbId: b }] });
    expect(added.status).toBe(200);
  });

  it('shows each metric, capped at the target, and earns (on read) what is reached', async () => {
    const got = await trophies(tracker.token);
    const progress = Object.fromEntries([...got.values()].map((t) => [t.id, t.progress]));
    expect(progress).toEqual({
      'first-watch': 1, 'hours-100': 9, 'hours-1000': 9, 'movies-10': 3, 'movies-100': 3, 'movies-1000': 3, 'episodes-100': 3, 'episodes-1000': 3,
      'show-completed': 0, 'shows-completed-10': 0, 'anime-1': 1, 'anime-10': 1, 'anime-50': 1, 'ratings-10': 2, 'ratings-100': 2,
      'first-list': 1, 'list-10-items': 2, 'list-100-items': 2, 'streak-7': 3, 'streak-30': 3, 'streak-365': 3,
    });
    const earned = [...got.values()].filter((t) => t.earned);
    expect(earned.map((t) => t.id)).toEqual(['first-watch', 'anime-1', 'first-list']);
    for (const t of earned) expect(t.earnedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const summary = await platform(app, tracker.token, 'GET', '/me/trophies/summary');
    expect(summary.body).toMatchObject({
      earned: 3, total: 21, points: 30,
      byTier: { bronze: { earned: 3, total: 7 }, silver: { earned: 0, total: 7 } },
      byCategory: { watching: { earned: 1, total: 3 }, anime: { earned: 1, total: 3 }, lists: { earned: 1, total: 3 }, movies: { earned: 0, total: 3 } },
      lastEarnedAt: earned.map((t) => t.earnedAt).sort().at(-1),
    });
    // Earned on the read, with their notifications; the job then finds nothing left to award.
    expect((await inbox(tracker.token)).unread).toEqual({ unread: 3 });
    await runJob(tracker.userId);
    expect((await inbox(tracker.token)).items).toHaveLength(3);
    expect((await trophies(tracker.token)).get('first-watch')!.earnedAt).toBe(got.get('first-watch')!.earnedAt);
  });
});

describe('earning through real history writes', () => {
  let earner: Member;
  beforeAll(async () => {
    earner = await member(app, 'earner', ['history:write', 'trophies:read', 'notifications:read', 'history:read']);
  });

  it('POST /watch-history earns "First watch" through the job: one trophy_earned notification, one unread', async () => {
    const logged = await platform(app, earner.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY });
    expect(logged.status).toBe(200);
    expect((await inbox(earner.token)).unread).toEqual({ unread: 0 });

    const run = await runJob(earner.userId);
    expect(run.awarded).toBeGreaterThanOrEqual(1);
    const { items, unread } = await inbox(earner.token);
    expect(unread).toEqual({ unread: 1 });
    expect(items).toHaveLength(1);
    expect(items[0]).toEqual({
      id: expect.any(String),
      kind: 'trophy_earned',
      title: 'Trophy earned: First watch',
      body: 'Log your first watch',
      data: {
        id: 'first-watch', name: 'First watch', description: 'Log your first watch', category: 'watching', tier: 'bronze',
        points: 10, metric: 'watches', target: 1, progress: 1, earned: true, earnedAt: expect.any(String),
      },
      read: false,
      readAt: null,
      createdAt: expect.any(String),
    });
    const trophy = (await trophies(earner.token)).get('first-watch')!;
    expect(trophy).toMatchObject({ progress: 1, earned: true, earnedAt: (items[0]!.data as Item).earnedAt });

    // Earned once: the job again, and two jobs at once, award nothing more.
    expect((await runJob(earner.userId)).awarded).toBe(0);
    await platform(app, earner.token, 'POST', '/watch-history', { type: 'movie', movieDbId: movies[1], watchedAt: '2025-05-01T10:00:00Z' });
    await settled(app, earner.userId);
    const both = await Promise.all([followTrophyChanges(em()), followTrophyChanges(em())]);
    expect(both.map((r) => r.awarded)).toEqual([0, 0]);
    expect(await inbox(earner.token)).toMatchObject({ unread: { unread: 1 }, items: [{ kind: 'trophy_earned' }] });
  });

  it('follows the log page by page and round by round: small pages award the same, once', async () => {
    const pager = await member(app, 'pager', ['history:write', 'trophies:read', 'notifications:read']);
    // Four watches of two movies on four days (not the one made anime above).
    for (const [i, movieDbId] of [movies[0], movies[1], movies[0], movies[1]].entries()) {
      const res = await platform(app, pager.token, 'POST', '/watch-history', { type: 'movie', movieDbId, watchedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString() });
      expect(res.status).toBe(200);
    }
    await settled(app, pager.userId);
    // Rounds of one page of one change: every change its own round and transaction.
    const run = await followTrophyChanges(em(), 1, 1);
    expect(run.changes).toBeGreaterThanOrEqual(4);
    expect((await inbox(pager.token)).items.map((n) => (n.data as Item).id)).toEqual(['first-watch']);
    expect(await followTrophyChanges(em(), 1)).toEqual({ changes: 0, users: 0, awarded: 0 });
  });

  it('runs on its timer (TROPHY_INTERVAL_MS) and awards without anyone reading trophies', async () => {
    const timed = await member(app, 'timed', ['history:write', 'notifications:read']);
    const stop = startTrophyJob(app.db.orm, createLogger('silent'), 50);
    try {
      expect((await platform(app, timed.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY })).status).toBe(200);
      await expect.poll(async () => (await inbox(timed.token)).unread, { timeout: 30_000, interval: 100 }).toEqual({ unread: 1 });
    } finally {
      stop();
    }
    expect(startTrophyJob(app.db.orm, createLogger('silent'), 0)).toBeTypeOf('function');
  });

  it('keeps an earned trophy when the history behind it is deleted', async () => {
    const history = await platform(app, earner.token, 'GET', '/me/history');
    for (const entry of history.body.items as Array<{ id: number }>) {
      expect((await platform(app, earner.token, 'DELETE', `/watch-history/${entry.id}`)).status).toBe(200);
    }
    await runJob(earner.userId);
    const before = (await inbox(earner.token)).items[0]!.data as Item;
    expect((await trophies(earner.token)).get('first-watch')).toMatchObject({ progress: 0, earned: true, earnedAt: before.earnedAt });
    expect((await inbox(earner.token)).items).toHaveLength(1);
  });

  it('POST /sync/history of a whole show earns "Finisher" and "First watch", each notified once', async () => {
    const syncer = await member(app, 'syncer', ['history:write', 'trophies:read', 'notifications:read']);
    // The show whose aired regular episodes fit in one batch (the synthetic catalog also has unaired ones).
    const shows = await query<{ movie_db_id: number; eps: Array<{ season: number; episode: number }> }>(em(), {
      text: `select t.movie_db_id, json_agg(json_build_object('season', e.season_number, 'episode', e.episode_number)) as eps
        from title t join episode e on e.title_id = t.id
        where t.type = 'show' and e.season_number > 0 and (e.air_date is null or e.air_date <= (now() at time zone 'UTC')::date)
        group by t.movie_db_id having count(*) <= 100 order by count(*) limit 1`,
      params: [],
    });
    const show = shows[0]!;
    const res = await bulk(app, syncer.token, 'history', show.eps.map((e, i) => ({
      client_item_id: `ep-${i}`, movie_db_id: show.movie_db_id, season: e.season, episode: e.episode, watched_at: '2026-02-01T20:00:00Z',
    })));
    expect(res.status).toBe(200);
    expect(res.body.inserted).toBe(show.eps.length);

    await runJob(syncer.userId);
    const { items, unread } = await inbox(syncer.token);
    expect(items.map((n) => [n.kind, (n.data as Item).id]).sort()).toEqual([['trophy_earned', 'first-watch'], ['trophy_earned', 'show-completed']]);
    expect(unread).toEqual({ unread: 2 });
    expect((await trophies(syncer.token)).get('show-completed')).toMatchObject({ progress: 1, earned: true });
    await runJob(syncer.userId);
    expect((await inbox(syncer.token)).items).toHaveLength(2);
  });

  it('records each earned trophy in the change feed as resource "trophies" (scope trophies:read)', async () => {
    const feed = await readFeed(app, earner.token, { resources: 'trophies' });
    expect(feed.changes).toEqual([
      {
        resource: 'trophies', resourceId: 'first-watch', op: 'upsert', changedAt: expect.any(String),
        data: expect.objectContaining({ id: 'first-watch', earned: true, earnedAt: expect.any(String), progress: 1 }),
      },
    ]);
    const snapshot = await platform(app, earner.token, 'GET', '/me/sync/snapshot?resource=trophies');
    expect((snapshot.body.items as Item[]).map((t) => [t.id, t.earned])).toEqual([['first-watch', true]]);
    const noTrophies = await tokenWith(app, earner, ['history:read']);
    expectError(await platform(app, noTrophies, 'GET', '/me/sync/changes?resources=trophies'), 403, 'insufficient_scope', { required_scope: 'trophies:read' });
  });

  // A transaction that took its xid first but commits last: the job runs while it is open (after a later
  // write of another user committed), and must neither award that later write past it nor skip it.
  it.skipIf(!servicesMode)('never skips a history write that commits late', async () => {
    const late = await member(app, 'late', ['trophies:read', 'notifications:read']);
    const quick = await member(app, 'quick', ['history:write', 'trophies:read', 'notifications:read']);
    const t = (await resolveTitle(em(), { type: 'movie', movieDbId: SPIRITED_AWAY }))!;
    let commit!: () => void;
    const release = new Promise<void>((r) => (commit = r));
    let written!: () => void;
    const wrote = new Promise<void>((r) => (written = r));
    const held = transaction(em(), async (tx) => {
      await logWatches(tx, late.userId, [{ titleId: t.id, episodeId: null, season: null, episode: null, watchedAt: new Date(Date.now() - DAY), runtimeMinutes: null, source: 'api', clientId: null }]);
      written();
      await release;
    });
    await wrote;
    expect((await platform(app, quick.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY })).status).toBe(200);

    await followTrophyChanges(em());
    // Behind the open transaction: neither user's watch is past the horizon yet.
    expect((await inbox(quick.token)).unread).toEqual({ unread: 0 });
    expect((await inbox(late.token)).unread).toEqual({ unread: 0 });

    commit();
    await held;
    await runJob(late.userId, quick.userId);
    expect((await inbox(late.token)).unread).toEqual({ unread: 1 });
    expect((await inbox(quick.token)).unread).toEqual({ unread: 1 });
  });
});

describe('the job\'s read of change_log', () => {
  // The job reads every user's changes in (xid, id) order: only the partial index made for it serves that
  // (the query must name the same resources as the index predicate, or the planner cannot use it).
  it('walks the partial index change_log_trophy_follow', async () => {
    const plan = await transaction(em(), async (tx) => {
      await query(tx, { text: 'set local enable_seqscan = off', params: [] });
      return query<{ 'QUERY PLAN': string }>(tx, { text: `explain ${READ_PAGE}`, params: ['0', '0', 10] });
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using change_log_trophy_follow/);
  });
});

describe('TROPHY_INTERVAL_MS', () => {
  it('defaults to 60 seconds, takes 0 (off) to 3,600,000 ms, and refuses anything else with one line', () => {
    expect(loadConfig({}).trophyIntervalMs).toBe(60_000);
    expect(loadConfig({ TROPHY_INTERVAL_MS: '0' }).trophyIntervalMs).toBe(0);
    expect(loadConfig({ TROPHY_INTERVAL_MS: '3600000' }).trophyIntervalMs).toBe(3_600_000);
    for (const bad of ['3600001', '-1', '1.5', 'soon']) {
      expect(() => loadConfig({ TROPHY_INTERVAL_MS: bad })).toThrow(/^invalid configuration: TROPHY_INTERVAL_MS /);
    }
  });
});
