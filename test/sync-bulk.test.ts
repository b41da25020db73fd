// Bulk sync (POST /sync/{resource}): per-item results, the envelope's limits, scopes, and idempotency
// exactly as the Idempotency-Key parameter of the platform OpenAPI document says (replay, conflict, in progress,
// 24-hour expiry).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { runBulkSync } from '../src/core/sync/bulk.ts';
import { bodyHash } from '../src/core/sync/idempotency.ts';
import { runSyncSweep } from '../src/jobs/sync-sweep.ts';
import { startSyncSweep } from './helpers/jobs.ts';
import { parseItems } from '../src/rpc/routers/sync.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk, newKey } from './helpers/sync-client.ts';
import { heldHistoryWrite } from './helpers/sync-hold.ts';
import { createLogger } from '../src/core/log.ts';

let app: TestApp;
let alice: Member;
const em = () => app.db.orm.em.fork();
const ALL_WRITES = ['history:write', 'ratings:write', 'lists:write', 'history:read'];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice', ALL_WRITES);
});
afterAll(() => app?.stop());

async function historyCount(userId: string): Promise<number> {
  const [row] = await query<{ n: number }>(em(), { text: `select count(*)::int as n from watch_history where user_id = $1`, params: [userId] });
  return row!.n;
}

/** `n` distinct watches of Spirited Away, a day apart (none a duplicate of another). */
function watches(n: number, from = Date.UTC(2020, 0, 1)) {
  return Array.from({ length: n }, (_, i) => ({ client_item_id: `w${i}`, movie_db_id: SPIRITED_AWAY, watched_at: new Date(from + i * 86_400_000).toISOString() }));
}

const RESULT_KEYS = ['client_item_id', 'error', 'id', 'index', 'reason', 'resolved_movie_db_id', 'status'];
const BODY_KEYS = ['deferred', 'idempotency_replayed', 'inserted', 'invalid', 'removed', 'results', 'skipped', 'updated'];

describe('POST /sync/history', () => {
  it('answers each item: inserted, duplicate, deferred (title or episode unmatched), invalid; with the counters', async () => {
    const m = await member(app, 'hist', ['history:write']);
    const at = '2026-01-01T20:00:00Z';
    const res = await bulk(app, m.token, 'history', [
      { client_item_id: 'a', movie_db_id: SPIRITED_AWAY, watched_at: at, episode_title: 'ignored', poster_path: '/p.jpg', still_path: null, runtime_minutes: 120 },
      { client_item_id: 'b', title: 'Spirited Away', year: 2001, watched_at: '2026-01-01T20:30:00+00:00' },
      { client_item_id: 'c', film_db_id: 'tt0245429', watched_at: '2026-03-01T20:00:00Z' },
      { client_item_id: 'd', movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: at },
      { movie_db_id: FIRST_SHOW, episode: 3, watched_at: at },
      { client_item_id: 'f', movie_db_id: 999_999_999, watched_at: at },
      { client_item_id: 'g', movie_db_id: FIRST_SHOW, season: 77, episode: 1, watched_at: at },
      { client_item_id: 'h', movie_db_id: SPIRITED_AWAY },
      { client_item_id: 'i', movie_db_id: SPIRITED_AWAY, watched_at: at, rating: 5 },
      'not an object',
      { client_item_id: 'k', watched_at: at },
      { client_item_id: 'l', movie_db_id: SPIRITED_AWAY, season: 1, watched_at: at },
    ]);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(BODY_KEYS);
    const results = res.body.results as Array<Record<string, unknown>>;
    for (const r of results) expect(Object.keys(r).sort()).toEqual(RESULT_KEYS);
    expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const [a, b, c, d, e, f, g, h, i, j, k, l] = results;
    expect(a).toEqual({ client_item_id: 'a', index: 0, status: 'inserted', id: expect.any(Number), reason: null, resolved_movie_db_id: SPIRITED_AWAY, error: null });
    expect(b).toEqual({ client_item_id: 'b', index: 1, status: 'skipped', id: a!.id, reason: 'duplicate', resolved_movie_db_id: SPIRITED_AWAY, error: null });
    expect(c).toMatchObject({ status: 'inserted', resolved_movie_db_id: SPIRITED_AWAY });
    expect(d).toMatchObject({ status: 'inserted', resolved_movie_db_id: FIRST_SHOW });
    expect(e).toMatchObject({ client_item_id: null, status: 'inserted', resolved_movie_db_id: FIRST_SHOW });
    expect(f).toEqual({ client_item_id: 'f', index: 5, status: 'deferred', id: null, reason: 'unmatched', resolved_movie_db_id: null, error: null });
    expect(g).toEqual({ client_item_id: 'g', index: 6, status: 'deferred', id: null, reason: 'unmatched', resolved_movie_db_id: FIRST_SHOW, error: null });
    for (const [x, field] of [[h, 'watched_at'], [i, 'rating'], [j, 'object'], [k, 'name the title'], [l, 'episode']] as const) {
      expect(x).toMatchObject({ status: 'invalid', id: null, reason: null, resolved_movie_db_id: null, error: expect.stringContaining(field) });
    }
    expect(j!.client_item_id).toBeNull();
    expect(res.body).toMatchObject({ inserted: 4, updated: 0, removed: 0, skipped: 1, invalid: 5, deferred: 2, idempotency_replayed: false });
    expect(await historyCount(m.userId)).toBe(4);
    // The episode by absolute number is episode 3 of season 1 (the show's first regular season).
    const [row] = await query<{ season_number: number; episode_number: number; runtime_minutes: number | null; source: string }>(em(), {
      text: `select season_number, episode_number, runtime_minutes, source from watch_history where id = $1`,
      params: [e!.id],
    });
    expect(row).toMatchObject({ season_number: 1, episode_number: 3, source: 'sync' });
    const [first] = await query<{ runtime_minutes: number }>(em(), { text: `select runtime_minutes from watch_history where id = $1`, params: [a!.id] });
    expect(first!.runtime_minutes).toBe(120);
  });

  it('takes 1 to 100 items: 100 pass, 0 and 101 are 400; the envelope is strict', async () => {
    const m = await member(app, 'limits', ['history:write']);
    const hundred = await bulk(app, m.token, 'history', watches(100));
    expect(hundred.status).toBe(200);
    expect(hundred.body.inserted).toBe(100);
    expectError(await bulk(app, m.token, 'history', watches(101)), 400, 'invalid_request');
    expectError(await bulk(app, m.token, 'history', []), 400, 'invalid_request');
    expectError(await platform(app, m.token, 'POST', '/sync/history', { items: 'x' }, { 'idempotency-key': newKey() }), 400, 'invalid_request');
    expectError(await platform(app, m.token, 'POST', '/sync/history', { items: watches(1), extra: 1 }, { 'idempotency-key': newKey() }), 400, 'invalid_request');
    expectError(await platform(app, m.token, 'POST', '/sync/history', undefined, { 'idempotency-key': newKey() }), 400, 'invalid_request');
    expect(await historyCount(m.userId)).toBe(100);
  });

  it('needs an Idempotency-Key of 8 to 200 characters', async () => {
    const m = await member(app, 'keys', ['history:write']);
    expectError(await bulk(app, m.token, 'history', watches(1), null), 400, 'invalid_request');
    expectError(await bulk(app, m.token, 'history', watches(1), '1234567'), 400, 'invalid_request');
    expectError(await bulk(app, m.token, 'history', watches(1), 'k'.repeat(201)), 400, 'invalid_request');
    expect((await bulk(app, m.token, 'history', watches(1), '12345678')).status).toBe(200);
    expect((await bulk(app, m.token, 'history', watches(1, Date.UTC(2021, 0, 1)), 'k'.repeat(200))).status).toBe(200);
    expect(await historyCount(m.userId)).toBe(2);
  });

  it('accepts a body of exactly 512 KiB and refuses one byte more with 413', async () => {
    const m = await member(app, 'sizes', ['history:write']);
    const send = (size: number) => {
      const json = JSON.stringify({ items: watches(3, Date.UTC(2022, 0, 1)) });
      // Padding inside the item (JSON whitespace before its closing brace) keeps the body valid.
      const body = json.replace(/}\]}$/, `${' '.repeat(size - json.length)}}]}`);
      expect(Buffer.byteLength(body)).toBe(size);
      return fetch(`${app.url}/api/platform/v1/sync/history`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json', 'idempotency-key': newKey() },
        body,
      });
    };
    const ok = await send(512 * 1024);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { inserted: number }).inserted).toBe(3);
    const over = await send(512 * 1024 + 1);
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: string }).error).toBe('payload_too_large');
  });
});

describe('scopes and routes', () => {
  it('each resource needs its write scope; other resources are 404 (403 to a token with no sync write scope); no token is 401', async () => {
    const m = await member(app, 'scoped', ['history:read', 'ratings:read', 'lists:read']);
    expectError(await bulk(app, m.token, 'history', watches(1)), 403, 'insufficient_scope', { required_scope: 'history:write' });
    expectError(await bulk(app, m.token, 'ratings', [{ movie_db_id: SPIRITED_AWAY, rating: 8 }]), 403, 'insufficient_scope', { required_scope: 'ratings:write' });
    expectError(await bulk(app, m.token, 'watchlist', [{ movie_db_id: SPIRITED_AWAY }]), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    // The catch-all takes any of the three write scopes, checked first like every route's scope.
    expectError(await bulk(app, m.token, 'collection', watches(1)), 403, 'insufficient_scope', { required_scope: 'history:write' });
    expectError(await bulk(app, alice.token, 'nothing', watches(1)), 404, 'not_found');
    expectError(await bulk(app, null as unknown as string, 'history', watches(1)), 401, 'invalid_token');
    expectError(await bulk(app, null as unknown as string, 'nothing', watches(1)), 401, 'invalid_token');
  });
});

describe('POST /sync/ratings', () => {
  it('inserts, updates, skips an unchanged rating, removes; seasons and episodes; invalid and deferred items', async () => {
    const m = await member(app, 'rater', ['ratings:write']);
    const first = await bulk(app, m.token, 'ratings', [
      { client_item_id: 'movie', movie_db_id: SPIRITED_AWAY, rating: 8, rated_at: '2026-01-01T00:00:00Z' },
      { client_item_id: 'series', type: 'show', movie_db_id: FIRST_SHOW, rating: 7 },
      { client_item_id: 'season', movie_db_id: FIRST_SHOW, season: 1, rating: 6 },
      { client_item_id: 'episode', movie_db_id: FIRST_SHOW, season: 1, episode: 1, rating: 9 },
      { client_item_id: 'no-season', movie_db_id: FIRST_SHOW, season: 88, rating: 6 },
      { client_item_id: 'too-high', movie_db_id: SPIRITED_AWAY, rating: 11 },
      { client_item_id: 'both', movie_db_id: SPIRITED_AWAY, rating: 5, remove: true },
      { client_item_id: 'movie-episode', type: 'movie', movie_db_id: SPIRITED_AWAY, season: 1, rating: 5 },
    ]);
    expect(first.status).toBe(200);
    const r1 = first.body.results as Array<Record<string, unknown>>;
    expect(r1.map((r) => r.status)).toEqual(['inserted', 'inserted', 'inserted', 'inserted', 'deferred', 'invalid', 'invalid', 'invalid']);
    expect(r1[4]).toMatchObject({ reason: 'unmatched', resolved_movie_db_id: FIRST_SHOW });
    expect(first.body).toMatchObject({ inserted: 4, invalid: 3, deferred: 1 });
    const second = await bulk(app, m.token, 'ratings', [
      { client_item_id: 'movie', movie_db_id: SPIRITED_AWAY, rating: 9 },
      { client_item_id: 'series', type: 'show', movie_db_id: FIRST_SHOW, rating: 7 },
      { client_item_id: 'episode', movie_db_id: FIRST_SHOW, season: 1, episode: 1, remove: true },
      { client_item_id: 'episode', movie_db_id: FIRST_SHOW, season: 1, episode: 1, remove: true },
    ]);
    const r2 = second.body.results as Array<Record<string, unknown>>;
    expect(r2.map((r) => [r.status, r.reason])).toEqual([['updated', null], ['skipped', 'unchanged'], ['removed', null], ['skipped', 'absent']]);
    expect(r2[0]!.id).toBe(r1[0]!.id);
    expect(r2[2]!.id).toBe(r1[3]!.id);
    expect(second.body).toMatchObject({ updated: 1, skipped: 2, removed: 1, idempotency_replayed: false });
    const rows = await query<{ scope: string; season_number: number | null; rating: number }>(em(), {
      text: `select scope, season_number, rating from user_rating where user_id = $1 order by scope`,
      params: [m.userId],
    });
    expect(rows).toEqual([
      { scope: 'season', season_number: 1, rating: 6 },
      { scope: 'series', season_number: null, rating: 7 },
      { scope: 'title', season_number: null, rating: 9 },
    ]);
  });
});

describe('POST /sync/watchlist', () => {
  it('adds titles, skips one already there, removes, and skips removing one that is not there', async () => {
    const m = await member(app, 'watcher', ['lists:write', 'lists:read']);
    const first = await bulk(app, m.token, 'watchlist', [
      { client_item_id: 'movie', movie_db_id: SPIRITED_AWAY },
      { client_item_id: 'show', type: 'show', movie_db_id: FIRST_SHOW },
      { client_item_id: 'again', film_db_id: 'tt0245429' },
      { client_item_id: 'missing', movie_db_id: 999_999_999 },
      { client_item_id: 'bad', movie_db_id: SPIRITED_AWAY, season: 1 },
    ]);
    expect(first.status).toBe(200);
    const r1 = first.body.results as Array<Record<string, unknown>>;
    expect(r1.map((r) => [r.status, r.reason, r.resolved_movie_db_id])).toEqual([
      ['inserted', null, SPIRITED_AWAY],
      ['inserted', null, FIRST_SHOW],
      ['skipped', 'duplicate', SPIRITED_AWAY],
      ['deferred', 'unmatched', null],
      ['invalid', null, null],
    ]);
    expect(r1[2]!.id).toBe(r1[0]!.id);
    const second = await bulk(app, m.token, 'watchlist', [
      { movie_db_id: SPIRITED_AWAY, remove: true },
      { movie_db_id: SPIRITED_AWAY, remove: true },
    ]);
    expect((second.body.results as Array<Record<string, unknown>>).map((r) => [r.status, r.reason, r.id])).toEqual([
      ['removed', null, r1[0]!.id],
      ['skipped', 'absent', null],
    ]);
    expect(second.body).toMatchObject({ removed: 1, skipped: 1 });
  });
});

describe('idempotency', () => {
  it('replays the same key and body (in any key order), refuses another body, and keeps keys per resource and app', async () => {
    const m = await member(app, 'idem', ['history:write', 'ratings:write']);
    const key = newKey();
    const items = watches(5);
    const first = await bulk(app, m.token, 'history', items, key);
    expect(first.body).toMatchObject({ inserted: 5, idempotency_replayed: false });
    const again = await bulk(app, m.token, 'history', items.map((i) => ({ watched_at: i.watched_at, movie_db_id: i.movie_db_id, client_item_id: i.client_item_id })), key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, idempotency_replayed: true });
    expect(await historyCount(m.userId)).toBe(5);
    expectError(await bulk(app, m.token, 'history', watches(6), key), 409, 'idempotency_conflict');
    // The same key for another operation, or from another app, is another key.
    expect((await bulk(app, m.token, 'ratings', [{ movie_db_id: SPIRITED_AWAY, rating: 8 }], key)).body.idempotency_replayed).toBe(false);
    const otherApp = await member(app, 'idem2', ['history:write']);
    const other = await bulk(app, otherApp.token, 'history', items, key);
    expect(other.body).toMatchObject({ inserted: 5, idempotency_replayed: false });
  });

  // Both modes: on the embedded database the requests queue for its one connection, so the answers
  // after the first are replays; on PostgreSQL some meet the running batch and get 409.
  it('50 parallel requests with one key and body apply the batch exactly once', async () => {
    const m = await member(app, 'parallel', ['history:write']);
    const key = newKey();
    const items = watches(20);
    const answers = await Promise.all(Array.from({ length: 50 }, () => bulk(app, m.token, 'history', items, key)));
    const ok = answers.filter((a) => a.status === 200);
    for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 409, 'request_in_progress');
    expect(ok.filter((a) => a.body.idempotency_replayed === false)).toHaveLength(1);
    const applied = ok.find((a) => a.body.idempotency_replayed === false)!;
    expect(applied.body.inserted).toBe(20);
    for (const a of ok) expect(a.body).toEqual({ ...applied.body, idempotency_replayed: a.body.idempotency_replayed });
    expect(await historyCount(m.userId)).toBe(20);
    // After the storm, the key replays.
    expect((await bulk(app, m.token, 'history', items, key)).body).toEqual({ ...applied.body, idempotency_replayed: true });
  });

  // Services mode: on the embedded database a second request waits for the open transaction instead
  // (transactions run one at a time there) and then replays.
  it.skipIf(!servicesMode)('answers 409 request_in_progress while the first request with the key is running, then replays', async () => {
    const m = await member(app, 'inflight', ['history:write']);
    const key = newKey();
    const items = watches(2);
    // The transaction stays open 3 s after its writes.
    const first = heldHistoryWrite(em(), m, items, key, 3000);
    await first.claimed;
    expectError(await bulk(app, m.token, 'history', items, key), 409, 'request_in_progress');
    const applied = await first.applied;
    expect((await bulk(app, m.token, 'history', items, key)).body).toEqual({ ...applied, idempotency_replayed: true });
  });

  it('replays for 24 hours; after that the key is unseen again, and the sweep job deletes the record', async () => {
    const m = await member(app, 'expiry', ['history:write']);
    const key = newKey();
    const items = watches(3);
    const t0 = new Date();
    const first = await bulk(app, m.token, 'history', items, key);
    expect(first.body.idempotency_replayed).toBe(false);
    const at = (hours: number) =>
      runBulkSync(em(), { ...parseItems('history', items), userId: m.userId, clientId: m.clientId, key, hash: bodyHash(items), now: new Date(t0.getTime() + hours * 3_600_000) });
    expect(await at(23.9)).toEqual({ ...first.body, idempotency_replayed: true });
    expect(await runSyncSweep(em(), new Date(t0.getTime() + 23.9 * 3_600_000))).toEqual({ idempotencyRecords: 0, changes: 0 });
    // Past 24 hours the batch is applied again (its watches are already there: duplicates).
    const later = await at(24.1);
    expect(later).toMatchObject({ inserted: 0, skipped: 3, idempotency_replayed: false });
    expect(later.results.map((r) => r.id)).toEqual((first.body.results as Array<{ id: number }>).map((r) => r.id));

    // The job, with its clock 25 hours on from the last record, deletes it.
    const records = async () =>
      (await query<{ n: number }>(em(), { text: `select count(*)::int as n from sync_idempotency where user_id = $1`, params: [m.userId] }))[0]!.n;
    expect(await records()).toBe(1);
    const stop = startSyncSweep(app.db.orm, createLogger('silent'), { intervalMs: 20, clock: () => new Date(t0.getTime() + 49 * 3_600_000) });
    try {
      await expect.poll(records, { timeout: 30_000 }).toBe(0);
    } finally {
      stop();
    }
  });
});
