// The change feed waits for the oldest open transaction of the whole PostgreSQL server; /metrics says
// how long (change_feed_lag_seconds), and the service's own connections end a transaction left idle
// (idle_in_transaction_session_timeout), so the service itself cannot hold the feed for long. In
// services mode a transaction on another database of the same server holds the feed, and the gauge
// shows its age; a rating written meanwhile reaches the feed only once it ends.
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../src/core/db/query-builder.ts';
import { IDLE_IN_TRANSACTION_TIMEOUT_MS } from '../src/core/db/orm.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

const TOKEN = 'feed-lag-metrics-token-0123';
let app: TestApp;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN: TOKEN });
  await seedCatalog(app);
  alice = await member(app, 'alice_lag', ['ratings:write', 'ratings:read', 'history:read']);
});
afterAll(() => app?.stop());

async function lag(): Promise<number> {
  const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  expect(text).toContain('# TYPE change_feed_lag_seconds gauge');
  const line = text.split('\n').find((l) => l.startsWith('change_feed_lag_seconds '));
  expect(line).toBeDefined();
  return Number(line!.split(' ')[1]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('change_feed_lag_seconds', () => {
  it("is in /metrics, 0 while nothing holds the feed (embedded: the database is the service's alone)", async () => {
    const value = await lag();
    expect(value).toBeGreaterThanOrEqual(0);
    // On a shared server other test files' transactions count too: only the embedded value is known.
    if (!servicesMode) expect(value).toBeLessThan(1);
  });

  it.skipIf(!servicesMode)('shows the age of a transaction on another database of the server, and the feed waits for it', async () => {
    // Another database on the same server: the machine's `test` database, not this file's.
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select pg_current_xact_id()');
      const changes = await platform(app, alice.token, 'GET', '/me/sync/changes');
      const cursor = changes.body.nextCursor as string;
      expect((await platform(app, alice.token, 'POST', '/sync/ratings', { items: [{ movie_db_id: SPIRITED_AWAY, rating: 9 }] }, { 'idempotency-key': 'feed-lag-rating' })).status).toBe(200);
      await sleep(1500);
      expect(await lag()).toBeGreaterThanOrEqual(1.4);
      // Held: the rating is committed but not yet in the feed.
      const held = await platform(app, alice.token, 'GET', `/me/sync/changes?cursor=${encodeURIComponent(cursor)}`);
      expect(held.body.changes).toEqual([]);
      await other.query('commit');
      // Released (other test files on the server may hold it a little longer themselves).
      let resources: string[] = [];
      await until('the rating in the feed', async () => {
        const after = await platform(app, alice.token, 'GET', `/me/sync/changes?cursor=${encodeURIComponent(cursor)}`);
        resources = (after.body.changes as Array<{ resource: string }>).map((c) => c.resource);
        return resources.includes('ratings');
      }, 60_000, 100).catch(() => undefined);
      expect(resources).toContain('ratings');
    } finally {
      await other.end();
    }
  });

  it.skipIf(!servicesMode)("sets idle_in_transaction_session_timeout on the service's connections", async () => {
    const row = await sql<{ ms: string }>`select current_setting('idle_in_transaction_session_timeout') as ms`.execute(db(app.db.orm.em.fork()));
    expect(row.rows[0]!.ms).toBe(`${IDLE_IN_TRANSACTION_TIMEOUT_MS / 1000}s`);
  });
});
