// Bulk sync and the change feed under load (services mode: `node src/main.ts` on the local PostgreSQL).
// 1. POST /sync/history: 8 clients (8 users, one app) each sending 100-item batches back to back, a new
//    Idempotency-Key per batch, every item a new watch. Items/s over the run, p50 and p99 per batch.
//    Target: at least 10,000 items/s.
//    Beside it, in the same run: the same batches' statements through bare `pg` (the database's share
//    alone), and where the CPU of each batch goes (the server, its PostgreSQL backends, the load
//    generator: on 2 shared cores, the sum bounds the throughput).
//    Then POST /sync/ratings the same way (8 other users, 100-item batches): a run where every item is a
//    new rating, then a run where every item changes one of those ratings. Target: at least 0.8x bulk
//    history's items/s in the same run.
// 2. GET /me/sync/changes pages of 500 for users with 10,000, 100,000 and 1,000,000 change-log rows
//    (BENCH_SYNC_FEED_SIZES; written in transactions of 1,000 rows), from cursors spread over each
//    user's log. Target: p99 at 1,000,000 rows no worse than at 10,000.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import pg from 'pg';
import type { ProbedWatch } from '../src/core/library/history-repository.ts';
import type { WatchInput } from '../src/core/library/history-write.ts';
import { feedParams } from '../src/core/sync/changes.ts';
import { IDEMPOTENCY_TTL_MS, lockName } from '../src/core/sync/idempotency.ts';
import { encodeFeedCursor } from '../src/core/sync/feed-cursor.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, type CpuMark, type Figures, formatRow, loadPaths, percentile, post, prepareCatalog, startService, tempDataDir, tokenIssuer } from './lib.ts';
import { atLeast, atMost, section, type Growth, type Measure, type Section, type Target } from './report.ts';
import { CLAIM_LOCK, insertWatchesStatement, lockUserHistoryStatement, probeWatchesStatement, READ_RECORD, RECORD_RESULT, RESOLVE_BY_MOVIE_DB_ID } from './statements.ts';

const CLIENTS = 8;
const BATCH = 100;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAGE = 500;
const FEED_SIZES = (process.env.BENCH_SYNC_FEED_SIZES ?? '10000,100000,1000000').split(',').filter(Boolean).map(Number);
const SCOPES = 'history:write history:read ratings:write';
const PREFIX = 'bench_sync_';

type Member = { userId: string; token: string; clientId: string };

async function members(db: Database, databaseUrl: string, n: number, tag: string): Promise<Member[]> {
  const em = db.orm.em.fork();
  const app = await createApp(em, { name: 'Sync bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: SCOPES.split(' '), confidential: false, official: false });
  const issue = await tokenIssuer(db, databaseUrl);
  const out: Member[] = [];
  for (let i = 0; i < n; i++) {
    const user = await createUser(em, { username: `${PREFIX}${tag}${i}_${Math.random().toString(36).slice(2, 6)}`, password: 'bench-password-1' });
    out.push({ userId: user.id, token: await issue(user.id, app.client_id, SCOPES), clientId: app.client_id });
  }
  return out;
}

/** CPU milliseconds per batch of each party, over the measured run (Linux /proc; null elsewhere). */
export type CpuPerBatch = { server: number; backends: number; loadGenerator: number } | null;

type BulkFigures = { itemsPerSecond: number; batches: number; p50: number; p99: number; nonOk: number; cpu: CpuPerBatch };

export type SyncBench = {
  titles: number;
  bulk: BulkFigures;
  /** The batch's own statements (no HTTP, no bearer lookups) through bare `pg`, in the same run. */
  bare: BulkFigures;
  /** POST /sync/ratings in the same run: every item a new rating, then every item a changed one. */
  ratings: { inserts: BulkFigures; updates: BulkFigures };
  feed: Array<{ rows: number; figures: Figures }>;
};

function cpuPerBatch(from: CpuMark | null, to: CpuMark | null, batches: number): CpuPerBatch {
  if (!from || !to || !batches) return null;
  const c = cpuBetween(from, to);
  return { server: c.server / batches, backends: c.backends / batches, loadGenerator: c.self / batches };
}

// Items are numbered across runs (warm-up included) so every one is a watch not sent before. Two hours
// apart from 1900, more than 500,000 of them stay in the past (a future watch would be `invalid`).
let serial = 0;

/** Each client sends batches back to back for `seconds`: every item a movie watch not sent before. */
function newItems(movieIds: number[]): { movie_db_id: number; watched_at: string }[] {
  return Array.from({ length: BATCH }, () => {
    const n = serial++;
    return { movie_db_id: movieIds[n % movieIds.length]!, watched_at: new Date(Date.UTC(1900, 0, 1) + n * 7_200_000).toISOString() };
  });
}

/**
 * The database's share alone: each client runs a batch's statements (the service's own SQL texts, the
 * same parameters' shapes) through a bare `pg` connection, one transaction per batch, commit included.
 * Order as runBulkSync with syncHistory: claim the key, read its record, resolve titles, take the
 * user's history lock, probe for duplicates, insert watches and their change records, record the result.
 */
async function bareLoad(databaseUrl: string, clients: Member[], movieIds: number[], seconds: number, db: Database): Promise<BulkFigures> {
  const conns = clients.map(() => new pg.Client({ connectionString: databaseUrl }));
  await Promise.all(conns.map((c) => c.connect()));
  const run = async (secs: number, cpu: boolean): Promise<BulkFigures> => {
    const latencies: number[] = [];
    const end = Date.now() + secs * 1000;
    const started = process.hrtime.bigint();
    const cpuFrom = cpu ? await cpuMark(db, process.pid) : null;
    await Promise.all(
      clients.map(async (m, i) => {
        const c = conns[i]!;
        while (Date.now() < end) {
          const items = newItems(movieIds);
          const t = process.hrtime.bigint();
          const scope = { userId: m.userId, clientId: m.clientId, operation: 'history', key: randomUUID() };
          const now = new Date();
          await c.query('begin');
          await c.query(CLAIM_LOCK, [lockName(scope)]);
          await c.query(READ_RECORD, [scope.userId, scope.clientId, scope.operation, scope.key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString()]);
          const titles = (await c.query<{ idx: number; id: string; runtime_minutes: number | null }>(RESOLVE_BY_MOVIE_DB_ID, [JSON.stringify(items.map((it, idx) => ({ idx, type: 'movie', movie_db_id: it.movie_db_id })))])).rows;
          const lock = lockUserHistoryStatement(m.userId);
          await c.query(lock.text, lock.params);
          const watches: WatchInput[] = titles.map((r) => ({ titleId: r.id, episodeId: null, season: null, episode: null, watchedAt: new Date(items[r.idx]!.watched_at), runtimeMinutes: r.runtime_minutes, source: 'sync', clientId: m.clientId }));
          const probe = probeWatchesStatement(m.userId, watches);
          const probed = (await c.query<ProbedWatch>(probe.text, probe.params)).rows;
          const insert = insertWatchesStatement(m.userId, watches, probed);
          const inserted = (await c.query<{ id: string }>(insert.text, insert.params)).rows;
          const results = inserted.map((r, index) => ({ client_item_id: null, index, status: 'inserted', id: Number(r.id), reason: null, resolved_movie_db_id: items[index]!.movie_db_id, error: null }));
          const result = { results, inserted: results.length, updated: 0, removed: 0, skipped: 0, invalid: 0, deferred: 0 };
          await c.query(RECORD_RESULT, [scope.userId, scope.clientId, scope.operation, scope.key, 'x'.repeat(43), JSON.stringify(result), now.toISOString()]);
          await c.query('commit');
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuTo = cpu ? await cpuMark(db, process.pid) : null;
    latencies.sort((a, b) => a - b);
    const c = cpuPerBatch(cpuFrom, cpuTo, latencies.length);
    // The load generator is this process, which is also the client: it has no separate server.
    return {
      itemsPerSecond: (latencies.length * BATCH) / elapsed,
      batches: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      nonOk: 0,
      cpu: c && { server: 0, backends: c.backends, loadGenerator: c.loadGenerator },
    };
  };
  try {
    await run(2, false);
    return await run(seconds, true);
  } finally {
    await Promise.all(conns.map((c) => c.end()));
  }
}

// The load generator shares the cores with the service and PostgreSQL, so it should cost little:
// node:http on kept-alive sockets takes less CPU per batch than fetch (the figures print its share).
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

/** A run's batches: the resource posted, each batch's items, and the counter every item should land in. */
type BulkRun = { resource: 'history' | 'ratings'; items: (c: Member, i: number) => unknown[]; expect: 'inserted' | 'updated' };

const historyRun = (movieIds: number[]): BulkRun => ({ resource: 'history', items: () => newItems(movieIds), expect: 'inserted' });

async function bulkLoad(url: string, clients: Member[], run: BulkRun, seconds: number, cpu?: () => Promise<CpuMark | null>): Promise<BulkFigures> {
  const latencies: number[] = [];
  const cpuFrom = (await cpu?.()) ?? null;
  let nonOk = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c, i) => {
      while (Date.now() < end) {
        const items = run.items(c, i);
        const t = process.hrtime.bigint();
        const res = await post(
          `${url}/api/platform/v1/sync/${run.resource}`,
          { authorization: `Bearer ${c.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          JSON.stringify({ items }),
          agent,
        );
        const body = JSON.parse(res.body) as Record<string, unknown>;
        if (res.status !== 200 || body[run.expect] !== BATCH) {
          if (!nonOk) process.stderr.write(`a ${run.resource} batch was not fully ${run.expect}: ${res.status} ${JSON.stringify(body).slice(0, 300)}\n`);
          nonOk += 1;
        }
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuTo = (await cpu?.()) ?? null;
  latencies.sort((a, b) => a - b);
  return {
    itemsPerSecond: (latencies.length * BATCH) / elapsed,
    batches: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    nonOk,
    cpu: cpuPerBatch(cpuFrom, cpuTo, latencies.length),
  };
}

// Ratings: each rater walks the same list of titles (movies and shows: title-level ratings, the ones
// that also re-record the title's favourite and status items), its own user, so in the first run every
// item is a new rating; the second run walks the titles again, each item changing a rating to the other
// of two values (5 and 6) and moving its rated_at.
type RatingTarget = { movie_db_id: number; type: 'movie' | 'show' };

function ratingRuns(targets: RatingTarget[], clients: number): { inserts: BulkRun; updates: BulkRun } {
  const inserted = new Array<number>(clients).fill(0);
  const updated = new Array<number>(clients).fill(0);
  const ratedAt = (n: number, pass: number) => new Date(Date.UTC(2000, 0, 1) + n * 60_000 + pass * 86_400_000).toISOString();
  return {
    inserts: {
      resource: 'ratings',
      expect: 'inserted',
      items: (_c, i) =>
        Array.from({ length: BATCH }, () => {
          const n = inserted[i]!++;
          if (n >= targets.length) throw new Error(`the ratings bench ran out of titles (${targets.length}) to rate`);
          return { ...targets[n]!, rating: 5, rated_at: ratedAt(n, 0) };
        }),
    },
    updates: {
      resource: 'ratings',
      expect: 'updated',
      // Over the titles the first run rated, pass after pass: pass 0 sets 6, pass 1 sets 5 again, ...
      items: (_c, i) =>
        Array.from({ length: BATCH }, () => {
          const u = updated[i]!++;
          const n = u % inserted[i]!;
          const pass = Math.floor(u / inserted[i]!);
          return { ...targets[n]!, rating: pass % 2 === 0 ? 6 : 5, rated_at: ratedAt(n, pass + 1) };
        }),
    },
  };
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
    await bulkLoad(service.url, writers, historyRun(movieIds), 2);
    const bulk = await bulkLoad(service.url, writers, historyRun(movieIds), SECONDS, () => cpuMark(db, service.child.pid));
    const bare = await bareLoad(databaseUrl, writers, movieIds, SECONDS, db);

    const targets = await query<RatingTarget>(db.orm.em.fork(), { text: `select movie_db_id, type from title order by popularity desc, id`, params: [] });
    const raters = await members(db, databaseUrl, CLIENTS, 'r');
    const runs = ratingRuns(targets, CLIENTS);
    await bulkLoad(service.url, raters, runs.inserts, 2);
    const inserts = await bulkLoad(service.url, raters, runs.inserts, SECONDS, () => cpuMark(db, service.child.pid));
    await bulkLoad(service.url, raters, runs.updates, 2);
    const updates = await bulkLoad(service.url, raters, runs.updates, SECONDS, () => cpuMark(db, service.child.pid));

    const feed: SyncBench['feed'] = [];
    for (const rows of FEED_SIZES) {
      const [reader] = await members(db, databaseUrl, 1, `f${rows}_`);
      process.stderr.write(`writing ${rows} change-log rows...\n`);
      await fillChangeLog(db, reader!.userId, rows);
      feed.push({ rows, figures: await loadPaths(service.url, reader!.token, await feedPaths(db, reader!.userId, rows), CLIENTS, SECONDS) });
    }
    return { titles, bulk, bare, ratings: { inserts, updates }, feed };
  } finally {
    await service.stop();
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_sync\\_%'`, params: [] });
    await db.close();
  }
}

function cpuLine(c: CpuPerBatch, parts: string): string {
  if (!c) return '';
  const total = c.server + c.backends + c.loadGenerator;
  return `\n    CPU per batch: ${parts} (total ${total.toFixed(1)} ms: at most ~${((os.cpus().length * 1000 * BATCH) / total).toFixed(0)} items/s on ${os.cpus().length} cores)`;
}

export function printSync(b: SyncBench): void {
  console.log(`\nsync (services mode, ${b.titles} titles; ${CLIENTS} clients, ${SECONDS} s each)`);
  const c = b.bulk.cpu;
  console.log(
    `  POST /sync/history, ${BATCH}-item batches: ${b.bulk.itemsPerSecond.toFixed(0)} items/s (target 10,000)   per batch p50 ${b.bulk.p50.toFixed(1)} ms   p99 ${b.bulk.p99.toFixed(1)} ms   (${b.bulk.batches} batches, ${b.bulk.nonOk} not fully inserted)` +
      cpuLine(c, c ? `server ${c.server.toFixed(1)} ms, its PostgreSQL backends ${c.backends.toFixed(1)} ms, load generator ${c.loadGenerator.toFixed(1)} ms` : ''),
  );
  const r = b.bare.cpu;
  console.log(
    `  bare pg, the batch's statements:    ${b.bare.itemsPerSecond.toFixed(0)} items/s   per batch p50 ${b.bare.p50.toFixed(1)} ms   p99 ${b.bare.p99.toFixed(1)} ms   (${b.bare.batches} batches; service / bare ${(b.bulk.itemsPerSecond / b.bare.itemsPerSecond).toFixed(2)})` +
      cpuLine(r, r ? `PostgreSQL backends ${r.backends.toFixed(1)} ms, client ${r.loadGenerator.toFixed(1)} ms` : ''),
  );
  for (const [name, f] of ratingRows(b)) {
    const c = f.cpu;
    console.log(
      `  POST /sync/ratings, ${name}: ${f.itemsPerSecond.toFixed(0)} items/s (${(f.itemsPerSecond / b.bulk.itemsPerSecond).toFixed(2)}x bulk history; target 0.8x)   per batch p50 ${f.p50.toFixed(1)} ms   p99 ${f.p99.toFixed(1)} ms   (${f.batches} batches, ${f.nonOk} not fully applied)` +
        cpuLine(c, c ? `server ${c.server.toFixed(1)} ms, its PostgreSQL backends ${c.backends.toFixed(1)} ms, load generator ${c.loadGenerator.toFixed(1)} ms` : ''),
    );
  }
  console.log(`  CPU per item (server + its backends): ${cpuPerItem(b)}`);
  for (const f of b.feed) console.log(formatRow(`  GET /me/sync/changes, pages of ${PAGE}, ${f.rows.toLocaleString('en')} rows`, f.figures));
  const [small, large] = b.feed;
  if (small && large) console.log(`  feed p99 at ${large.rows.toLocaleString('en')} rows / at ${small.rows.toLocaleString('en')} rows: ${(large.figures.p99 / small.figures.p99).toFixed(2)} (target: at most ~1)`);
}

const ratingRows = (b: SyncBench): Array<[string, BulkFigures]> => [
  ['new ratings', b.ratings.inserts],
  ['changed ratings', b.ratings.updates],
];

/** CPU per item of the service and its PostgreSQL backends, bulk history beside bulk ratings. */
function cpuPerItem(b: SyncBench): string {
  const per = (c: CpuPerBatch) => (c ? `${((c.server + c.backends) / BATCH).toFixed(3)} ms` : 'not measured');
  return `history ${per(b.bulk.cpu)}, new ratings ${per(b.ratings.inserts.cpu)}, changed ratings ${per(b.ratings.updates.cpu)}`;
}

/** Figures of a bulk run as a load measure (batches per second in, items per second shown). */
function bulkFigures(f: BulkFigures): Figures {
  return { requestsPerSecond: f.itemsPerSecond, p50: f.p50, p99: f.p99, requests: f.batches };
}

export function syncSection(b: SyncBench): Section {
  const measures: Measure[] = [
    { label: `POST /sync/history, ${BATCH}-item batches (latency per batch; samples: batches)`, unit: 'items/s', figures: bulkFigures(b.bulk), baseline: { label: "the batch's statements, bare pg", figures: bulkFigures(b.bare) } },
    ...ratingRows(b).map(([name, f]) => ({
      label: `POST /sync/ratings, ${BATCH}-item batches, ${name} (latency per batch; samples: batches)`,
      unit: 'items/s',
      figures: bulkFigures(f),
      baseline: { label: 'POST /sync/history, same run', figures: bulkFigures(b.bulk) },
    })),
    ...b.feed.map((f) => ({ label: `GET /me/sync/changes, pages of ${PAGE}, ${f.rows.toLocaleString('en')} rows`, figures: f.figures })),
  ];
  const targets: Target[] = [
    atLeast(7, `bulk history sync at least 10,000 items/s (${CLIENTS} clients)`, b.bulk.itemsPerSecond, 10_000, 'items/s'),
    atLeast(19, `bulk sync at least 10,000 items/s at ${CLIENTS} clients`, b.bulk.itemsPerSecond, 10_000, 'items/s'),
    ...ratingRows(b).map(([name, f]) => atLeast(35, `bulk ratings (${name}) at least 0.8x bulk history's items/s in the same run`, f.itemsPerSecond / b.bulk.itemsPerSecond, 0.8)),
  ];
  const small = b.feed.find((f) => f.rows === 10_000) ?? b.feed[0];
  const large = b.feed.find((f) => f.rows === 1_000_000) ?? b.feed.at(-1);
  if (small && large && small !== large) {
    targets.push(atMost(7, `change feed p99 at ${large.rows.toLocaleString('en')} rows no worse than at ${small.rows.toLocaleString('en')} (${small.figures.p99.toFixed(1)} ms)`, large.figures.p99, small.figures.p99));
  }
  const growth: Growth[] = [];
  for (const s of b.feed) {
    const l = b.feed.find((f) => f.rows === s.rows * 10);
    if (l) growth.push({ endpoint: `GET /me/sync/changes, pages of ${PAGE}, cursors spread over the log`, unit: 'req/s', small: { size: s.rows, figures: s.figures }, large: { size: l.rows, figures: l.figures } });
  }
  const cpu = (c: CpuPerBatch) => (c ? `server ${c.server.toFixed(1)} ms, its PostgreSQL backends ${c.backends.toFixed(1)} ms, load generator ${c.loadGenerator.toFixed(1)} ms` : 'not measured');
  return section(
    'Sync: bulk writes and the change feed (services mode)',
    `${CLIENTS} clients (8 users, one app) each sending ${BATCH}-item history batches back to back, a new Idempotency-Key and new watches in every batch; the baseline runs each batch's own statements through bare \`pg\` (one transaction per batch). Bulk ratings the same way (8 other users): every item a new title-level rating (movies and shows), then every item a changed one; their baseline is bulk history in the same run. Change feed: pages of ${PAGE} from 200 cursors spread over a user's log of each size, ${CLIENTS} connections.`,
    {
      measures,
      values: [
        { label: 'Batches not fully inserted', value: String(b.bulk.nonOk) },
        { label: 'Ratings batches not fully applied', value: `${b.ratings.inserts.nonOk} (new ratings), ${b.ratings.updates.nonOk} (changed ratings)` },
        { label: 'CPU per batch through the service', value: cpu(b.bulk.cpu) },
        { label: 'CPU per batch through the service, bulk ratings', value: `new ratings: ${cpu(b.ratings.inserts.cpu)}; changed ratings: ${cpu(b.ratings.updates.cpu)}` },
        { label: 'CPU per item, the service and its PostgreSQL backends', value: cpuPerItem(b) },
        { label: 'CPU per batch, bare pg', value: b.bare.cpu ? `PostgreSQL backends ${b.bare.cpu.backends.toFixed(1)} ms, client ${b.bare.cpu.loadGenerator.toFixed(1)} ms` : 'not measured' },
      ],
      targets,
      growth,
    },
  );
}

if (import.meta.main) printSync(await benchSync());
