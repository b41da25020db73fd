// The change feed (GET /me/sync/changes) and the snapshot (GET /me/sync/snapshot): shapes, scopes,
// deletes, cursors (bound to their parameters, valid 90 days), retention, and no change skipped while
// writers hold transactions open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChanges } from '../src/core/changes/record.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { readChanges } from '../src/core/sync/changes.ts';
import { pruneChangeLog } from '../src/core/sync/retention.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { bulk, readFeed, settled, type FeedChange } from './helpers/sync-client.ts';

let app: TestApp;
let bob: Member;
const em = () => app.db.orm.em.fork();
const DAY = 86_400_000;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  bob = await member(app, 'bob', ['history:write', 'history:read', 'ratings:write', 'ratings:read']);
  await bulk(app, bob.token, 'history', [{ movie_db_id: SPIRITED_AWAY, watched_at: '2026-01-01T20:00:00Z' }]);
  await bulk(app, bob.token, 'ratings', [
    { movie_db_id: SPIRITED_AWAY, rating: 8, rated_at: '2026-01-02T00:00:00Z' },
    { movie_db_id: FIRST_SHOW, type: 'show', rating: 6 },
  ]);
  await bulk(app, bob.token, 'ratings', [{ movie_db_id: FIRST_SHOW, type: 'show', remove: true }]);
  await settled(app, bob.userId);
});
afterAll(() => app?.stop());

describe('GET /me/sync/changes', () => {
  it('serves every change in order with the full record, deletes included', async () => {
    const res = await platform(app, bob.token, 'GET', '/me/sync/changes');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['changes', 'hasMore', 'nextCursor']);
    expect(res.body.hasMore).toBe(false);
    expect(typeof res.body.nextCursor).toBe('string');
    const changes = res.body.changes as FeedChange[];
    for (const c of changes) expect(Object.keys(c).sort()).toEqual(['changedAt', 'data', 'op', 'resource', 'resourceId']);
    // Each change carries its item's latest state: the removed show rating's first change reads as
    // its delete too (at-least-once: the client applies the delete twice).
    expect(changes.map((c) => [c.resource, c.op])).toEqual([
      ['history', 'upsert'],
      ['ratings', 'upsert'],
      ['ratings', 'delete'],
      ['ratings', 'delete'],
    ]);
    const [watch, rating, showRating, removed] = changes;
    expect(watch).toEqual({
      resource: 'history',
      resourceId: expect.any(String),
      op: 'upsert',
      changedAt: expect.stringMatching(/Z$/),
      data: expect.objectContaining({ id: Number(watch!.resourceId), movieDbId: SPIRITED_AWAY, type: 'movie', season: null, episode: null, watchedAt: '2026-01-01T20:00:00.000Z' }),
    });
    expect(rating!.data).toMatchObject({ movieDbId: SPIRITED_AWAY, scope: 'title', rating: 8, ratedAt: '2026-01-02T00:00:00.000Z' });
    expect(showRating!.resourceId).toBe(removed!.resourceId);
    expect(removed).toEqual({ resource: 'ratings', resourceId: expect.any(String), op: 'delete', changedAt: expect.any(String), data: null });

    // Caught up: the cursor gives nothing until something changes, then exactly that.
    const idle = await platform(app, bob.token, 'GET', `/me/sync/changes?cursor=${res.body.nextCursor}`);
    expect(idle.body).toMatchObject({ changes: [], hasMore: false });
    await bulk(app, bob.token, 'ratings', [{ movie_db_id: SPIRITED_AWAY, rating: 3 }]);
    await settled(app, bob.userId);
    const next = await platform(app, bob.token, 'GET', `/me/sync/changes?cursor=${idle.body.nextCursor}`);
    expect((next.body.changes as FeedChange[]).map((c) => [c.resource, c.op, c.data?.rating])).toEqual([['ratings', 'upsert', 3]]);
  });

  it('pages with limit and hasMore; a cursor is bound to its resources', async () => {
    const first = await platform(app, bob.token, 'GET', '/me/sync/changes?limit=2&resources=ratings,history');
    expect(first.body).toMatchObject({ hasMore: true });
    expect(first.body.changes).toHaveLength(2);
    const rest = await readFeed(app, bob.token, { cursor: first.body.nextCursor as string, resources: 'history,ratings', limit: 1 });
    expect(rest.changes.length).toBeGreaterThanOrEqual(3);
    expectError(await platform(app, bob.token, 'GET', `/me/sync/changes?cursor=${first.body.nextCursor}&resources=ratings`), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', '/me/sync/changes?cursor=garbage'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', '/me/sync/changes?limit=0'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', '/me/sync/changes?limit=1001'), 400, 'invalid_request');
    expect((await platform(app, bob.token, 'GET', '/me/sync/changes?limit=1000')).status).toBe(200);
    expectError(await platform(app, bob.token, 'GET', '/me/sync/changes?resources=nonsense'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', '/me/sync/changes?other=1'), 400, 'invalid_request');
  });

  it('is filtered to what the token may read', async () => {
    const historyOnly = await tokenWith(app, bob, ['history:read']);
    const feed = await readFeed(app, historyOnly);
    expect(new Set(feed.changes.map((c) => c.resource))).toEqual(new Set(['history']));
    expectError(await platform(app, historyOnly, 'GET', '/me/sync/changes?resources=ratings'), 403, 'insufficient_scope', { required_scope: 'ratings:read' });
    expectError(await platform(app, historyOnly, 'GET', '/me/sync/changes?resources=history,collection'), 403, 'insufficient_scope', { required_scope: 'collection:read' });
    const none = await tokenWith(app, bob, ['history:write', 'events:read']);
    expectError(await platform(app, none, 'GET', '/me/sync/changes'), 403, 'insufficient_scope', { required_scope: 'history:read' });
    expectError(await platform(app, null, 'GET', '/me/sync/changes'), 401, 'invalid_token');
    // Another user's feed holds none of bob's changes.
    const carol = await member(app, 'carol', ['history:read', 'ratings:read']);
    expect((await readFeed(app, carol.token)).changes).toEqual([]);
  });

  // Services mode: two transactions open at once (the embedded database runs one at a time).
  it.skipIf(!servicesMode)('ends on the committed state when two writes of one item commit in the other order than their xids', async () => {
    const m = await member(app, 'racer', ['ratings:read']);
    let t2Committed!: () => void;
    const afterT2 = new Promise<void>((r) => (t2Committed = r));
    let t1HasXid!: () => void;
    const t1Began = new Promise<void>((r) => (t1HasXid = r));
    const change = (v: number) => [{ resource: 'ratings' as const, resourceId: 'x', op: 'upsert' as const, data: { v } }];
    // T1 takes the lower xid first, but writes the item after T2 has committed (as a row lock orders them).
    const t1 = transaction(em(), async (tx) => {
      await query(tx, { text: 'select pg_current_xact_id()', params: [] });
      t1HasXid();
      await afterT2;
      await recordChanges(tx, m.userId, change(1));
    });
    await Promise.race([t1Began, t1]);
    await transaction(em(), (tx) => recordChanges(tx, m.userId, change(2)));
    t2Committed();
    await t1;
    await settled(app, m.userId);
    const feed = await readFeed(app, m.token);
    expect(feed.changes.map((c) => c.data)).toEqual([{ v: 1 }, { v: 1 }]);
  });

  it('refuses a cursor older than 90 days, telling the client to take a new snapshot', async () => {
    const now = Date.now();
    await settled(app, bob.userId);
    const page = await readChanges(em(), { userId: bob.userId, resources: ['history'], limit: 10, now: new Date(now) });
    const follow = (days: number) => readChanges(em(), { userId: bob.userId, resources: ['history'], cursor: page.nextCursor, limit: 10, now: new Date(now + days * DAY) });
    await expect(follow(89.9)).resolves.toMatchObject({ changes: [] });
    await expect(follow(90.1)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('snapshot') });
  });
});

describe('GET /me/sync/snapshot', () => {
  it('pages the current items of one resource, and changesCursor continues the feed right after it', async () => {
    const m = await member(app, 'snap', ['history:write', 'history:read', 'ratings:read']);
    const items = Array.from({ length: 5 }, (_, i) => ({ movie_db_id: SPIRITED_AWAY, watched_at: new Date(Date.UTC(2024, 0, 1) + i * DAY).toISOString() }));
    await bulk(app, m.token, 'history', items);
    await settled(app, m.userId);
    const first = await platform(app, m.token, 'GET', '/me/sync/snapshot?resource=history&limit=3');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['changesCursor', 'items', 'nextCursor']);
    expect(first.body.items).toHaveLength(3);
    // Written after the snapshot began: not in its pages, first thing in the feed after it.
    await bulk(app, m.token, 'history', [{ movie_db_id: SPIRITED_AWAY, watched_at: '2025-06-01T00:00:00Z' }]);
    const second = await platform(app, m.token, 'GET', `/me/sync/snapshot?resource=history&limit=3&cursor=${first.body.nextCursor}`);
    expect(second.body.items).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
    const snapshot = [...(first.body.items as Array<Record<string, unknown>>), ...(second.body.items as Array<Record<string, unknown>>)];
    expect(snapshot.map((i) => i.watchedAt).sort()).toEqual(items.map((i) => new Date(i.watched_at).toISOString()));
    expect(snapshot[0]).toMatchObject({ id: expect.any(Number), movieDbId: SPIRITED_AWAY, type: 'movie', season: null, episode: null, watchedAt: expect.any(String) });
    await settled(app, m.userId);
    const after = await readFeed(app, m.token, { cursor: first.body.changesCursor as string, resources: 'history' });
    expect(after.changes.map((c) => c.data?.watchedAt)).toEqual(['2025-06-01T00:00:00.000Z']);
  });

  it('leaves out deleted items and checks the resource and its scope', async () => {
    const snap = await platform(app, bob.token, 'GET', '/me/sync/snapshot?resource=ratings');
    expect((snap.body.items as Array<Record<string, unknown>>).map((i) => [i.movieDbId, i.rating])).toEqual([[SPIRITED_AWAY, 3]]);
    expectError(await platform(app, bob.token, 'GET', '/me/sync/snapshot?resource=collection'), 403, 'insufficient_scope', { required_scope: 'collection:read' });
    expectError(await platform(app, bob.token, 'GET', '/me/sync/snapshot?resource=nonsense'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', '/me/sync/snapshot'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'GET', `/me/sync/snapshot?resource=history&cursor=${snap.body.nextCursor ?? 'x'}`), 400, 'invalid_request');
  });
});

describe('retention', () => {
  it('drops superseded changes and old deletes after the retention period, keeping each live item', async () => {
    const m = await member(app, 'retained', ['history:read', 'ratings:read']);
    const change = (resourceId: string, op: 'upsert' | 'delete', n: number) => ({ resource: 'ratings' as const, resourceId, op, data: op === 'delete' ? null : { id: Number(resourceId), n } });
    await transaction(em(), (tx) => recordChanges(tx, m.userId, [change('1', 'upsert', 1), change('1', 'upsert', 2), change('2', 'upsert', 1), change('2', 'delete', 0), change('3', 'upsert', 1)]));
    expect(await pruneChangeLog(em(), new Date(Date.now() + 80 * DAY))).toBe(0);
    await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY));
    await settled(app, m.userId);
    const left = await query<{ resource_id: string; op: string; data: { n: number } | null }>(em(), {
      text: `select resource_id, op, data from change_log where user_id = $1 order by id`,
      params: [m.userId],
    });
    expect(left.map((r) => [r.resource_id, r.op, r.data?.n])).toEqual([['1', 'upsert', 2], ['3', 'upsert', 1]]);
    const snap = await platform(app, m.token, 'GET', '/me/sync/snapshot?resource=ratings');
    expect((snap.body.items as Array<{ n: number }>).map((i) => i.n)).toEqual([2, 1]);
  });
});

describe('no change is skipped', () => {
  // Both modes. The embedded database runs one transaction at a time (one connection), so no commit
  // can come late there; PostgreSQL is where late commits happen.
  it('8 writers (some holding their transactions open) write 20,000 changes; a reader following nextCursor sees all', async () => {
    const m = await member(app, 'firehose', ['history:read']);
    const WRITERS = 8;
    const TXNS = 25;
    const PER_TXN = 100;
    const HALF = 12;
    let done = false;
    // Halfway through, every writer waits until the reader has read twice more, so the reader is sure to
    // read a feed that is still growing however the machine schedules the two sides.
    let reads = 0;
    let readsAtHalf = -1;
    let seenAtHalf = -1;
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let atHalf = 0;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let t = 0; t < TXNS; t++) {
        if (t === HALF) {
          atHalf += 1;
          if (atHalf === WRITERS) readsAtHalf = reads;
          await gate;
        }
        // Odd writers hold some transactions open for a random while, after writing, before the commit.
        const hold = w % 2 === 1 && Math.random() < 0.4 ? Math.random() * 0.15 : 0;
        await transaction(em(), async (tx) => {
          await recordChanges(tx, m.userId, Array.from({ length: PER_TXN }, (_, i) => ({ resource: 'history' as const, resourceId: `${w}-${t}-${i}`, op: 'upsert' as const, data: { w, t, i } })));
          if (hold) await query(tx, { text: `select pg_sleep($1)`, params: [hold] });
        });
        // A pause between transactions: on the embedded database transactions run one at a time, and
        // back-to-back ones would keep the reader waiting until the end.
        await new Promise((r) => setTimeout(r, 2));
      }
    });
    const seen = new Set<string>();
    const reader = (async () => {
      let cursor: string | undefined;
      for (;;) {
        const finished = done;
        const page = await readFeed(app, m.token, { ...(cursor ? { cursor } : {}), limit: 500 });
        reads += 1;
        for (const c of page.changes) seen.add(c.resourceId);
        cursor = page.cursor;
        if (readsAtHalf >= 0 && reads >= readsAtHalf + 2 && seenAtHalf < 0) {
          seenAtHalf = seen.size;
          openGate();
        }
        // Once every writer has committed, one more read from the cursor must bring the rest.
        if (finished) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(writers);
    await settled(app, m.userId, 60_000);
    done = true;
    await reader;
    // The reader read a partly written feed, then the rest of it.
    expect(seenAtHalf).toBeGreaterThan(0);
    expect(seenAtHalf).toBeLessThanOrEqual(WRITERS * HALF * PER_TXN);
    expect(seen.size).toBe(WRITERS * TXNS * PER_TXN);
  });
});
