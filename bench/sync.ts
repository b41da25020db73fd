// Bulk sync and the change feed under load (services mode: `node src/main.ts` on the local PostgreSQL).
// 1. POST /sync/history: 8 clients (8 users, one app) each sending 100-item batches back to back, a new
//    Idempotency-Key per batch, every item a new watch. Items/s over the run, p50 and p99 per batch.
//    Target: at least 10,000 items/s.
// 2. GET /me/sync/changes pages of 500 for a user with 10,000 change-log rows and for one with
//    1,000,000 (written in transactions of 1,000 rows), from cursors spread over each user's log.
//    Target: p99 at 1,000,000 rows no worse than at 10,000.
import { randomUUID } from 'node:crypto';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import { feedParams } from '../src/core/sync/changes.ts';
import { encodeFeedCursor } from '../src/core/sync/feed-cursor.ts';
import { benchDatabaseUrl, type Figures, formatRow, loadPaths, percentile, prepareCatalog, startService, tempDataDir, tokenIssuer } from './lib.ts';

const CLIENTS = 8;
const BATCH = 100;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAGE = 500;
const FEED_SIZES = (process.env.BENCH_SYNC_FEED_SIZES ?? '10000,1000000').split(',').filter(Boolean).map(Number);
const SCOPES = 'history:write history:read';
const PREFIX = 'bench_sync_';

type Member = { userId: string; token: string };

async function members(db: Database, databaseUrl: string, n: number, tag: string): Promise<Member[]> {
  const em = db.orm.em.fork();
  const app = await createApp(em, { name: 'Sync bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: SCOPES.split(' '), confidential: false, official: false });
  const issue = await tokenIssuer(db, databaseUrl);
  const out: Member[] = [];
  for (let i = 0; i < n; i++) {
    const user = await createUser(em, { username: `${PREFIX}${tag}${i}_${Math.random().toString(36).slice(2, 6)}`, password: 'bench-password-1' });
    out.push({ userId: user.id, token: await issue(user.id, app.client_id, SCOPES) });
  }
  return out;
}

export type SyncBench = {
  titles: number;
  bulk: { itemsPerSecond: number; batches: number; p50: number; p99: number; nonOk: number };
  feed: Array<{ rows: number; figures: Figures }>;
};

// Items are numbered across runs (warm-up included) so every one is a watch not sent before.
let serial = 0;

/** Each client sends batches back to back for `seconds`: every item a movie watch not sent before. */
async function bulkLoad(url: string, clients: Member[], movieIds: number[], seconds: number): Promise<SyncBench['bulk']> {
  const latencies: number[] = [];
  let nonOk = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c) => {
      while (Date.now() < end) {
        const items = Array.from({ length: BATCH }, () => {
          const n = serial++;
          return { movie_db_id: movieIds[n % movieIds.length], watched_at: new Date(Date.UTC(2000, 0, 1) + n * 7_200_000).toISOString() };
        });
        const t = process.hrtime.bigint();
        const res = await fetch(`${url}/api/platform/v1/sync/history`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ items }),
        });
        const body = (await res.json()) as { inserted?: number };
        if (res.status !== 200 || body.inserted !== BATCH) {
          if (!nonOk) process.stderr.write(`a batch was not fully inserted: ${res.status} ${JSON.stringify(body).slice(0, 300)}\n`);
          nonOk += 1;
        }
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return { itemsPerSecond: (latencies.length * BATCH) / elapsed, batches: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), nonOk };
}

/** `rows` history changes for the user, 1,000 per transaction (each its own xid, as real writes). */
async function fillChangeLog(db: Database, userId: string, rows: number): Promise<void> {
  const em = db.orm.em.fork();
  for (let done = 0; done < rows; done += 1000) {
    await query(em, {
      text: `insert into change_log (user_id, resource, resource_id, op, data)
        select $1, 'history', n::text, 'upsert',
          jsonb_build_object('id', n, 'movieDbId', 129, 'type', 'movie', 'season', null, 'episode', null, 'watchedAt', '2026-01-01T00:00:00.000Z')
        from generate_series($2::bigint, $3::bigint) n`,
      params: [userId, done + 1, Math.min(done + 1000, rows)],
    });
  }
  await query(em, { text: 'analyze change_log', params: [] });
}

/** Page paths from 200 cursors spread evenly over the user's log of `rows` rows. */
async function feedPaths(db: Database, userId: string, rows: number): Promise<string[]> {
  const positions = await query<{ xid: string; id: string }>(db.orm.em.fork(), {
    text: `select xid::text as xid, id::text as id from (
        select xid, id, row_number() over (order by xid, id) as n from change_log where user_id = $1) x
      where x.n % $2 = 1`,
    params: [userId, Math.max(1, Math.floor(rows / 200))],
  });
  const now = new Date();
  return positions.map((p) => `/api/platform/v1/me/sync/changes?limit=${PAGE}&resources=history&cursor=${encodeURIComponent(encodeFeedCursor(p, feedParams(['history']), now))}`);
}

export async function benchSync(): Promise<SyncBench> {
  const databaseUrl = benchDatabaseUrl();
  const titles = await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  await migrate(db.orm);
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    // Users of runs that died before cleaning up (their history and change log cascade).
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_sync\\_%'`, params: [] });
    const movieIds = (await query<{ movie_db_id: number }>(db.orm.em.fork(), { text: `select movie_db_id from title where type = 'movie' order by popularity desc limit 5000`, params: [] })).map(
      (r) => r.movie_db_id,
    );
    const writers = await members(db, databaseUrl, CLIENTS, 'w');
    await bulkLoad(service.url, writers, movieIds, 2);
    const bulk = await bulkLoad(service.url, writers, movieIds, SECONDS);

    const feed: SyncBench['feed'] = [];
    for (const rows of FEED_SIZES) {
      const [reader] = await members(db, databaseUrl, 1, `f${rows}_`);
      process.stderr.write(`writing ${rows} change-log rows...\n`);
      await fillChangeLog(db, reader!.userId, rows);
      feed.push({ rows, figures: await loadPaths(service.url, reader!.token, await feedPaths(db, reader!.userId, rows), CLIENTS, SECONDS) });
    }
    return { titles, bulk, feed };
  } finally {
    await service.stop();
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_sync\\_%'`, params: [] });
    await db.close();
  }
}

export function printSync(b: SyncBench): void {
  console.log(`\nsync (services mode, ${b.titles} titles; ${CLIENTS} clients, ${SECONDS} s each)`);
  console.log(
    `  POST /sync/history, ${BATCH}-item batches: ${b.bulk.itemsPerSecond.toFixed(0)} items/s (target 10,000)   per batch p50 ${b.bulk.p50.toFixed(1)} ms   p99 ${b.bulk.p99.toFixed(1)} ms   (${b.bulk.batches} batches, ${b.bulk.nonOk} not fully inserted)`,
  );
  for (const f of b.feed) console.log(formatRow(`  GET /me/sync/changes, pages of ${PAGE}, ${f.rows.toLocaleString('en')} rows`, f.figures));
  const [small, large] = b.feed;
  if (small && large) console.log(`  feed p99 at ${large.rows.toLocaleString('en')} rows / at ${small.rows.toLocaleString('en')} rows: ${(large.figures.p99 / small.figures.p99).toFixed(2)} (target: at most ~1)`);
}

if (import.meta.main) printSync(await benchSync());
