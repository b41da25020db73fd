// The facade is a dialect of the same service, not a copy (acceptance of the Trakt-compatible API): a
// change made through /trakt (a history sync, a scrobble) is in the platform change feed
// (GET /me/sync/changes) and in live events (GET /playback/events, a real EventSource), and a change made
// through the platform API (a watch, a rating) moves /trakt/sync/last_activities and is in the facade's
// reads (/trakt/sync/history, /trakt/sync/ratings). One user, one app, one token on both APIs.
import { EventSource, type FetchLike } from 'eventsource';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { readFeed, settled } from './helpers/sync-client.ts';
import { trakt } from './helpers/trakt.ts';
import { until } from './helpers/wait.ts';

const SCOPES = ['profile:read', 'history:read', 'history:write', 'ratings:read', 'ratings:write', 'playback:read', 'playback:write', 'events:read', 'lists:read', 'lists:write', 'collection:read'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: TestApp;
const open: EventSource[] = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterEach(() => {
  for (const es of open.splice(0)) es.close();
});
afterAll(() => app?.stop());

type Received = { name: string; data: Record<string, unknown> };

/** A real EventSource on the user's live events; resolves once it is open. */
async function liveEvents(who: Member): Promise<Received[]> {
  const received: Received[] = [];
  const withAuth: FetchLike = (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${who.token}` } });
  const es = new EventSource(`${app.url}/api/platform/v1/playback/events`, { fetch: withAuth });
  open.push(es);
  for (const name of ['playback.start', 'playback.pause', 'playback.stop', 'continue_watching.updated', 'continue_watching.removed']) {
    es.addEventListener(name, (e) => received.push({ name, data: JSON.parse(e.data) as Record<string, unknown> }));
  }
  await new Promise<void>((resolve, reject) => {
    es.addEventListener('open', () => resolve(), { once: true });
    es.addEventListener('error', (e) => reject(new Error(`stream error ${String((e as { code?: number }).code)}`)), { once: true });
  });
  return received;
}

/** The user's feed from the start, once every change of theirs is readable. */
async function feedOf(who: Member) {
  await settled(app, who.userId);
  return (await readFeed(app, who.token)).changes;
}

describe('a change made through the facade', () => {
  it('POST /trakt/sync/history is in the change feed, as the watch /trakt/sync/history then lists', async () => {
    const alice = await member(app, 'alice', SCOPES);
    const res = await trakt(app, alice, 'POST', '/sync/history', { movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2025-06-01T20:00:00.000Z' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.added).toEqual({ movies: 1, episodes: 0 });

    const history = (await feedOf(alice)).filter((c) => c.resource === 'history');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ op: 'upsert', data: expect.objectContaining({ type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2025-06-01T20:00:00.000Z' }) });
    // The facade's history id is the service's: the same row the feed names.
    const listed = (await ok(trakt(app, alice, 'GET', '/sync/history'))) as unknown as Record<string, unknown>[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: Number(history[0]!.resourceId), action: 'watch', type: 'movie', watched_at: '2025-06-01T20:00:00.000Z' });
  });

  it('a scrobble is in live events as it happens, and its watch (at 80 %) in the change feed', async () => {
    const bob = await member(app, 'bob', SCOPES);
    const received = await liveEvents(bob);
    const start = await trakt(app, bob, 'POST', '/scrobble/start', { movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 10 });
    expect(start.status, JSON.stringify(start.body)).toBe(201);
    await until('playback.start', () => received.some((e) => e.name === 'playback.start'));
    expect(received.find((e) => e.name === 'playback.start')!.data).toMatchObject({ state: 'playing', media_type: 'movie', movie_db_id: SPIRITED_AWAY, progress: 0.1, watched: false });

    const stop = await trakt(app, bob, 'POST', '/scrobble/stop', { movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 90 });
    expect(stop.status, JSON.stringify(stop.body)).toBe(201);
    expect(stop.body.action).toBe('scrobble');
    await until('playback.stop', () => received.some((e) => e.name === 'playback.stop'));
    expect(received.find((e) => e.name === 'playback.stop')!.data).toMatchObject({ media_type: 'movie', movie_db_id: SPIRITED_AWAY, progress: 0.9, watched: true });

    const watches = (await feedOf(bob)).filter((c) => c.resource === 'history');
    expect(watches).toHaveLength(1);
    expect(watches[0]).toMatchObject({ op: 'upsert', data: expect.objectContaining({ type: 'movie', movieDbId: SPIRITED_AWAY }) });
    // And the platform's own read of the history has it.
    const mine = await ok(platform(app, bob.token, 'GET', '/me/history'));
    expect((mine.items as Record<string, unknown>[]).map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY]);
  });
});

describe('a change made through the platform API', () => {
  it('a watch is in /trakt/sync/history', async () => {
    const carol = await member(app, 'carol', SCOPES);
    await ok(platform(app, carol.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2025-07-04T21:00:00Z' }));
    const history = (await ok(trakt(app, carol, 'GET', '/sync/history/movies'))) as unknown as Record<string, unknown>[];
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ action: 'watch', type: 'movie', watched_at: '2025-07-04T21:00:00.000Z', movie: { title: 'Spirited Away', year: 2001, ids: expect.objectContaining({ tmdb: SPIRITED_AWAY }) } });
  });

  it('a rating is in /trakt/sync/ratings', async () => {
    const dave = await member(app, 'dave', SCOPES);
    await ok(platform(app, dave.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 }));
    const ratings = (await ok(trakt(app, dave, 'GET', '/sync/ratings/movies'))) as unknown as Record<string, unknown>[];
    expect(ratings).toHaveLength(1);
    expect(ratings[0]).toMatchObject({ rating: 9, rated_at: expect.stringMatching(ISO), type: 'movie', movie: { title: 'Spirited Away', ids: expect.objectContaining({ tmdb: SPIRITED_AWAY }) } });
  });

  it('a watch moves last_activities\' movies.watched_at (and all), not rated_at', async () => {
    const erin = await member(app, 'erin', SCOPES);
    const before = await ok(trakt(app, erin, 'GET', '/sync/last_activities'));
    const t0 = Date.now();
    await ok(platform(app, erin.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2025-07-04T21:00:00Z' }));
    const after = await ok(trakt(app, erin, 'GET', '/sync/last_activities'));
    const movies = { before: before.movies as Record<string, string>, after: after.movies as Record<string, string> };
    expect(movies.after.watched_at).toMatch(ISO);
    expect(movies.after.watched_at).not.toBe(movies.before.watched_at);
    expect(Date.parse(movies.after.watched_at!)).toBeGreaterThanOrEqual(t0 - 1_000);
    expect(Date.parse(after.all as string)).toBeGreaterThanOrEqual(Date.parse(movies.after.watched_at!));
    expect(movies.after.rated_at).toBe(movies.before.rated_at);
  });

  it('a rating moves last_activities\' movies.rated_at, not watched_at', async () => {
    const fay = await member(app, 'fay', SCOPES);
    const before = await ok(trakt(app, fay, 'GET', '/sync/last_activities'));
    await ok(platform(app, fay.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 }));
    const after = await ok(trakt(app, fay, 'GET', '/sync/last_activities'));
    const movies = { before: before.movies as Record<string, string>, after: after.movies as Record<string, string> };
    expect(movies.after.rated_at).toMatch(ISO);
    expect(movies.after.rated_at).not.toBe(movies.before.rated_at);
    expect(movies.after.watched_at).toBe(movies.before.watched_at);
  });
});
