// The write-cost peer benchmark: what a single write costs the service, beside what the same statements
// cost through bare `pg`, for a light user (100 watches) and a very heavy one (100,000), in both modes.
// Operations, each through HTTP on the platform API with a bearer token: POST /watch-history (a movie the
// user has not watched), POST /ratings, POST /lists/{id}/items (one title a request), a playback
// start + stop at progress 0.95 (one pair counted as one request: the stop logs the watch), and, as a read,
// GET /title/movie/{id}. Every write names a title no earlier request of the run named (no dedup path).
// Each at 1 and 16 connections: throughput, p50/p99, CPU ms per request of the service process and of its
// PostgreSQL backends apart (/proc; embedded mode: the service process only, PostgreSQL is inside it).
//
// Services mode: the service reaches PostgreSQL through a wire-protocol proxy in this process
// (pg-wire-proxy.ts) that counts statements and round trips per request and captures each request's
// statements (text, parameters) during the 1-connection run. The baseline replays those sequences
// through a bare `pg` pool at the same concurrency, each inside its own BEGIN ... COMMIT (the service's
// transaction control replaced by the replay's, so the baseline pays the commit the service pays); a
// replayed write runs after the service's own, on the state that one left (a replayed watch is a second
// watch of the title; a rating replayed with the value the service set writes no rating row), what
// replays write stays until the bench users are deleted at the end, and replay errors are counted (an
// erring replay ends in ROLLBACK). Baseline CPU: this process + its backends.
// Embedded mode: the same operations against the service on a kept DATA_DIR (.bench-data/writes: the
// catalog import takes a minute or more the first time); statements are not counted there. Its baseline
// replays what services mode captured (at 1 connection: PGlite runs one session) through bare `pg` at the
// embedded database's socket inside the idle service: CPU of this process + the service process. Over
// the services replay, it is PGlite's own cost of the same statements against the native server's.
// Jobs on timers (trophies, imports, webhooks, catalog refresh) are off in the service, so their work
// does not land in a measured run at random; work a write leaves to them is not counted.
//
// Users are loaded in-process through the core's own logWatches (the history path every writer uses,
// with its figures and change records); embedded mode measures the light user only unless
// BENCH_WRITES_USERS names users (the very heavy one's load into PGlite takes about a minute). Run
// length: BENCH_SECONDS / 5 per run (50 runs in all, the whole bench about 4 minutes), after a
// warm-up of 0.5 s and at least WARM_REQUESTS requests, and once a service is up every path is warmed
// for FIRST_WARM_SECONDS and the idle service left until its CPU is quiet (settle) before the first
// measured run. The service's CPU is also given apart for its threads beside the main one (V8's
// background compilers and GC helpers). BENCH_WRITES_MODES, BENCH_WRITES_USERS, BENCH_WRITES_OPS and
// BENCH_WRITES_CONNECTIONS narrow the run (comma lists: `services`, `very heavy`, `watch,title detail`,
// `16`); with BENCH_CPU_PROF=dir the service writes a CPU profile there (profile-summary.ts reads it).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { logWatches, type WatchInput } from '../src/core/library/history-write.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { benchDatabaseUrl, percentile, prepareCatalog, processCpuMs, request, threadCpuMs, root, startService, tempDataDir, tokenIssuer, vacuumAnalyze, type Service } from './lib.ts';
import { EMBEDDED_PORT } from '../src/core/db/embedded.ts';
import { OWN_CLIENT } from '../src/core/db/embedded-guard.ts';
import { tokenKey } from '../src/oauth/bearer.ts';
import { PgWireProxy, type CapturedStatement } from './pg-wire-proxy.ts';
import { atMost, section, type Section, type Target } from './report.ts';

/** The issue this benchmark answers (the write path's cost). */
const ISSUE = 40;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10) / 5;
const WARM_SECONDS = 0.5;
/** The first warm-up of each path once a service is up. */
const FIRST_WARM_SECONDS = 2;
const CONNECTIONS = (process.env.BENCH_WRITES_CONNECTIONS ?? '1,16').split(',').map(Number);
/** Requests a warm-up runs at least, however long they take (a cold embedded service does a few a second). */
const WARM_REQUESTS = 20;
const P = '/api/platform/v1';
const PREFIX = 'bench_writes_';
const KEPT_DIR = path.join(root, '.bench-data', 'writes');
const SIZES = { light: 100, 'very heavy': 100_000 } as const;
/** Distinct movies per pool: more than two runs and their warm-ups take at the rates seen here. */
const POOL = 5000;
const LOAD_BATCH = 1000;
const BARE_APP = 'mts-bench-bare';
const DAY_MS = 86_400_000;
const LIMITS = { serviceWriteMs: 1.2, bareRatio: 1.5, flat: 1.5, embeddedRatio: 1.5 };

type Mode = 'services' | 'embedded';
type UserName = keyof typeof SIZES;
type OpName = 'watch' | 'rating' | 'list item' | 'playback' | 'title detail';
const OPS: Array<{ name: OpName; label: string; write: boolean }> = [
  { name: 'watch', label: 'POST /watch-history', write: true },
  { name: 'rating', label: 'POST /ratings', write: true },
  { name: 'list item', label: 'POST /lists/{id}/items', write: true },
  { name: 'playback', label: 'POST /playback/start + /stop (pair)', write: true },
  { name: 'title detail', label: 'GET /title/movie/{id}', write: false },
];

const pick = <T extends string>(env: string | undefined, all: readonly T[]): T[] => (env ? all.filter((x) => env.split(',').map((s) => s.trim()).includes(x)) : [...all]);
const MODES = pick<Mode>(process.env.BENCH_WRITES_MODES, ['services', 'embedded']);
const USERS = pick<UserName>(process.env.BENCH_WRITES_USERS, ['light', 'very heavy']);
/** Embedded mode: the light user unless asked for (loading the very heavy one into PGlite takes a minute of the run). */
const EMBEDDED_USERS = process.env.BENCH_WRITES_USERS ? USERS : (['light'] as UserName[]);
const OP_NAMES = pick<OpName>(process.env.BENCH_WRITES_OPS, OPS.map((o) => o.name));

type Call = { method: string; path: string; body?: unknown };
/** A request of an operation: one call, or (playback) a start and its stop. */
type Step = Call[];

/** serviceMs: all the service's threads; otherThreadsMs: those beside its main thread (V8's background compilers, GC helpers), part of serviceMs. */
type Figures = { requests: number; requestsPerSecond: number; p50: number; p99: number; serviceMs: number; otherThreadsMs: number; pgMs: number; statements?: number; roundTrips?: number };
type BareFigures = { requests: number; requestsPerSecond: number; p50: number; p99: number; selfMs: number; pgMs: number; errors: number; firstError?: string };
type Cell = { mode: Mode; user: UserName; op: OpName; connections: number; service: Figures; bare?: BareFigures };

export type WriteCostBench = { titles: number; cells: Cell[]; slowest: Array<{ text: string; count: number; ms: number }>; loadSeconds: Partial<Record<`${Mode} ${UserName}`, number>>; settled: Partial<Record<Mode, Settled>>; seconds: number };

type Catalog = { movies: Array<{ titleId: string; movieDbId: number; runtime: number | null }>; episodes: Array<{ titleId: string; episodeId: string; season: number; episode: number; runtime: number | null }> };

async function readCatalog(db: Database): Promise<Catalog> {
  const em = db.orm.em.fork();
  const movies = await query<{ titleId: string; movieDbId: number; runtime: number | null }>(em, { text: `select id::text as "titleId", movie_db_id as "movieDbId", runtime_minutes as runtime from title where type = 'movie' order by id`, params: [] });
  const episodes = await query<Catalog['episodes'][number]>(em, {
    text: `select e.title_id::text as "titleId", e.id::text as "episodeId", e.season_number as season, e.episode_number as episode, e.runtime_minutes as runtime from episode e order by e.id`,
    params: [],
  });
  return { movies, episodes };
}

/**
 * `size` watches for `userId`, written by the core's logWatches in transactions of LOAD_BATCH: movies
 * after the measured pools (2 x POOL), then episodes, spread over six years to yesterday.
 */
async function loadWatches(db: Database, userId: string, size: number, cat: Catalog): Promise<number> {
  const started = Date.now();
  const end = Date.now() - DAY_MS;
  const span = 6 * 365 * DAY_MS;
  const movies = cat.movies.slice(2 * POOL);
  const watches: WatchInput[] = [];
  for (let i = 0; i < size; i++) {
    const at = new Date(end - Math.floor((i / size) * span));
    const m = movies[i];
    const e = m ? undefined : cat.episodes[i - movies.length]!;
    watches.push(
      m
        ? { titleId: m.titleId, episodeId: null, season: null, episode: null, watchedAt: at, runtimeMinutes: m.runtime, source: 'sync', clientId: null }
        : { titleId: e!.titleId, episodeId: e!.episodeId, season: e!.season, episode: e!.episode, watchedAt: at, runtimeMinutes: e!.runtime, source: 'sync', clientId: null },
    );
  }
  for (let i = 0; i < watches.length; i += LOAD_BATCH) await transaction(db.orm.em.fork(), (tx) => logWatches(tx, userId, watches.slice(i, i + LOAD_BATCH)));
  return (Date.now() - started) / 1000;
}

type Prepared = { userId: string; token: string; listId?: number };

/** The users, loaded, with tokens; the list each adds to is made through the API once the service runs. */
async function prepareUsers(db: Database, databaseUrl: string, cat: Catalog, loadSeconds: WriteCostBench['loadSeconds'], mode: Mode): Promise<{ users: Map<UserName, Prepared>; appId: string }> {
  const em = db.orm.em.fork();
  await query(em, { text: `delete from app_user where username like 'bench\\_writes\\_%'`, params: [] });
  await query(em, { text: `delete from app where name = 'Write cost bench'`, params: [] });
  const app = await createApp(em, { name: 'Write cost bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: [...SCOPES], confidential: false, official: true });
  const mint = await tokenIssuer(db, databaseUrl);
  const users = new Map<UserName, Prepared>();
  for (const name of mode === 'embedded' ? EMBEDDED_USERS : USERS) {
    const user = await createUser(db.orm.em.fork(), { username: `${PREFIX}${name.replace(' ', '_')}_${Math.random().toString(36).slice(2, 6)}`, password: 'bench-password-1' });
    loadSeconds[`${mode} ${name}`] = await loadWatches(db, user.id, SIZES[name], cat);
    users.set(name, { userId: user.id, token: await mint(user.id, app.client_id, SCOPES.join(' ')) });
  }
  return { users, appId: app.client_id };
}

/** The requests of `op`, each naming a title no earlier one did (the read cycles through its pool). */
function steps(op: OpName, cat: Catalog, listId: number | undefined): () => Step | undefined {
  const first = cat.movies.slice(0, POOL).map((m) => m.movieDbId);
  const second = cat.movies.slice(POOL, 2 * POOL).map((m) => m.movieDbId);
  let i = 0;
  const next = (pool: number[]) => (i < pool.length ? pool[i++] : undefined);
  switch (op) {
    case 'watch':
      return () => {
        const id = next(first);
        return id === undefined ? undefined : [{ method: 'POST', path: '/watch-history', body: { type: 'movie', movieDbId: id } }];
      };
    case 'rating':
      return () => {
        const id = next(first);
        return id === undefined ? undefined : [{ method: 'POST', path: '/ratings', body: { type: 'movie', movieDbId: id, rating: 1 + (i % 10) } }];
      };
    case 'list item':
      return () => {
        const id = next(second);
        return id === undefined ? undefined : [{ method: 'POST', path: `/lists/${listId}/items`, body: { items: [{ type: 'movie', movieDbId: id }] } }];
      };
    case 'playback':
      return () => {
        const id = next(second);
        if (id === undefined) return undefined;
        const session = randomUUID();
        const now = Date.now();
        const event = { media_type: 'movie', title: 'Bench film', movie_db_id: id, playback_session_id: session, duration_seconds: 6000 };
        return [
          { method: 'POST', path: '/playback/start', body: { ...event, event_id: randomUUID(), event_created_at: now - 1000, progress: 0 } },
          { method: 'POST', path: '/playback/stop', body: { ...event, event_id: randomUUID(), event_created_at: now, progress: 0.95 } },
        ];
      };
    case 'title detail': {
      const both = [...first, ...second];
      return () => [{ method: 'GET', path: `/title/movie/${both[i++ % both.length]}` }];
    }
  }
}

/**
 * A request's captured statements, and the identifiers its bodies carried (event and session ids): the
 * replay gives those new values each time, or a replayed playback event would be the service's own again
 * (its receipt's key taken).
 */
type Captured = { statements: CapturedStatement[]; fresh: string[] };
type Run = { latencies: number[]; seconds: number; captured: Captured[] };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * `connections` loops over keep-alive connections, each taking the next request until `seconds` pass or
 * the requests run out. `proxy` (1 connection only): each request's statements are captured.
 */
async function drive(url: string, token: string, next: () => Step | undefined, connections: number, seconds: number, proxy?: PgWireProxy, atLeast = 0): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const captured: Captured[] = [];
  const started = performance.now();
  const end = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        let taken = 0;
        const take = () => (performance.now() < end || taken++ < atLeast / connections ? next() : undefined);
        for (let step = take(); step; step = take()) {
          if (proxy) proxy.capture = [];
          const t = performance.now();
          for (const c of step) {
            const res = await request(c.method, `${url}${P}${c.path}`, { authorization: `Bearer ${token}`, ...(c.body === undefined ? {} : { 'content-type': 'application/json' }) }, c.body === undefined ? undefined : JSON.stringify(c.body), agent);
            if (res.status >= 300) throw new Error(`${c.method} ${c.path} answered ${res.status}: ${res.body.slice(0, 300)}`);
            // A write that was not one (a dedup skip, a title already listed) would measure another path.
            if (/"(skipped|existing)"/.test(res.body) && !/"skipped":0/.test(res.body)) throw new Error(`${c.method} ${c.path} wrote nothing: ${res.body.slice(0, 300)}`);
          }
          latencies.push(performance.now() - t);
          if (proxy) captured.push({ statements: proxy.capture!, fresh: JSON.stringify(step).match(UUID) ?? [] });
        }
      }),
    );
  } finally {
    if (proxy) proxy.capture = undefined;
    agent.destroy();
  }
  return { latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000, captured };
}

/** CPU ms so far of each PostgreSQL backend `which` selects (by pid). */
async function backendCpu(admin: pg.Client, which: { ports: number[] } | { application: string }): Promise<Map<number, number>> {
  const { rows } = 'ports' in which ? await admin.query<{ pid: number }>('select pid from pg_stat_activity where client_port = any($1::int[])', [which.ports]) : await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [which.application]);
  const out = new Map<number, number>();
  for (const r of rows) {
    try {
      out.set(r.pid, processCpuMs(r.pid));
    } catch {
      // the backend ended meanwhile
    }
  }
  return out;
}

/** CPU between two backend marks; backends opened in between count from zero. */
const backendsBetween = (from: Map<number, number>, to: Map<number, number>) => [...to].reduce((sum, [pid, ms]) => sum + ms - (from.get(pid) ?? 0), 0);
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

type Env = { service: Service; admin?: pg.Client; proxy?: PgWireProxy };

/** How long the idle service took to go quiet after its warm-up, and the CPU it spent meanwhile. */
export type Settled = { seconds: number; cpuMs: number; quiet: boolean };
/** Idle CPU under which the service counts as quiet: 1% of a core over a window. */
const SETTLE_WINDOW_MS = 500;
const QUIET_MS = SETTLE_WINDOW_MS / 100;
const SETTLE_LIMIT_S = 120;

/** Waits, sending nothing, until a window of SETTLE_WINDOW_MS passes with the service's CPU under QUIET_MS (at most SETTLE_LIMIT_S). */
async function settle(pid: number): Promise<Settled> {
  const started = performance.now();
  const first = processCpuMs(pid);
  for (let at = first; ; ) {
    await new Promise((r) => setTimeout(r, SETTLE_WINDOW_MS));
    const now = processCpuMs(pid);
    const seconds = (performance.now() - started) / 1000;
    if (now - at < QUIET_MS || seconds >= SETTLE_LIMIT_S) return { seconds, cpuMs: now - first, quiet: now - at < QUIET_MS };
    at = now;
  }
}

/** One measured run of `op` through the service (after a warm-up from the same requests), with CPU and statements. */
async function measureService(env: Env, token: string, next: () => Step | undefined, connections: number): Promise<{ figures: Figures; captured: Captured[] }> {
  const pid = env.service.child.pid!;
  await drive(env.service.url, token, next, connections, WARM_SECONDS, undefined, WARM_REQUESTS);
  const mark = async () => ({ server: threadCpuMs(pid), pg: env.admin && env.proxy ? await backendCpu(env.admin, { ports: env.proxy.upstreamPorts() }) : new Map<number, number>(), statements: env.proxy?.statements ?? 0, roundTrips: env.proxy?.roundTrips ?? 0 });
  const from = await mark();
  const run = await drive(env.service.url, token, next, connections, SECONDS, connections === 1 ? env.proxy : undefined);
  const to = await mark();
  const n = run.latencies.length;
  if (!n) throw new Error('no request completed');
  return {
    figures: {
      requests: n,
      requestsPerSecond: n / run.seconds,
      p50: percentile(run.latencies, 50),
      p99: percentile(run.latencies, 99),
      serviceMs: (to.server.main + to.server.other - from.server.main - from.server.other) / n,
      otherThreadsMs: (to.server.other - from.server.other) / n,
      pgMs: backendsBetween(from.pg, to.pg) / n,
      ...(env.proxy ? { statements: (to.statements - from.statements) / n, roundTrips: (to.roundTrips - from.roundTrips) / n } : {}),
    },
    captured: run.captured,
  };
}

const TRANSACTION_CONTROL = /^\s*(begin|start transaction|commit|end|rollback)\b/i;

/** Where a replay runs: the PostgreSQL server, or the embedded database inside the service. */
type ReplayTarget = {
  pool: pg.PoolConfig;
  /** CPU ms so far of each process that runs the statements (PostgreSQL's backends, or the embedded service), by pid. */
  dbCpu: () => Promise<Map<number, number>>;
  /** A statement's name there (the embedded database's one session already holds the service's names). */
  name: (name: string) => string;
  /** A captured parameter as the target's data has it (the embedded mode's own user, token and list). */
  remap: (value: string) => string;
  /** Captured statements the target has no use for. */
  skip?: RegExp;
};

/**
 * The captured requests replayed through a bare `pg` pool, `connections` loops, each request inside
 * BEGIN ... COMMIT, for `seconds` (the sequences in turn, again from the first when all ran).
 */
async function replay(target: ReplayTarget, sequences: Captured[], connections: number, seconds: number): Promise<BareFigures> {
  const pool = new pg.Pool({ ...target.pool, max: connections });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const loop = async (until: number, keep: boolean) => {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < until) {
            const seq = sequences[next++ % sequences.length]!;
            const renewed = new Map(seq.fresh.map((v) => [v, randomUUID()]));
            const values = (params: CapturedStatement['params']) => params.map((v) => (typeof v === 'string' ? target.remap(renewed.size ? v.replace(UUID, (m) => renewed.get(m) ?? m) : v) : v));
            const t = performance.now();
            await client.query('begin');
            let end = 'commit';
            try {
              for (const s of seq.statements) {
                if (TRANSACTION_CONTROL.test(s.text) || target.skip?.test(s.text)) continue;
                await client.query({ name: s.name ? target.name(s.name) : undefined, text: s.text, values: values(s.params) });
              }
            } catch (err) {
              end = 'rollback';
              if (keep) errors += 1;
              if (keep && !firstError) firstError = (err as Error).message;
            }
            await client.query(end);
            if (keep) latencies.push(performance.now() - t);
          }
        } finally {
          client.release();
        }
      }),
    );
  };
  try {
    await loop(performance.now() + WARM_SECONDS * 1000, false);
    const from = { self: selfCpuMs(), pg: await target.dbCpu() };
    const started = performance.now();
    await loop(started + seconds * 1000, true);
    const elapsed = (performance.now() - started) / 1000;
    const to = { self: selfCpuMs(), pg: await target.dbCpu() };
    latencies.sort((a, b) => a - b);
    const n = latencies.length;
    return { requests: n, requestsPerSecond: n / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), selfMs: (to.self - from.self) / n, pgMs: backendsBetween(from.pg, to.pg) / n, errors, ...(firstError ? { firstError } : {}) };
  } finally {
    await pool.end();
  }
}

const JOBS_OFF = { TROPHY_INTERVAL_MS: '0', IMPORT_INTERVAL_MS: '0', WEBHOOK_INTERVAL_MS: '0', CATALOG_REFRESH_INTERVAL_MS: '0' };

/** Every operation for every user in one mode: the service started once, on the users loaded before it. */
let replays = 0;

/** What services mode captured of each user's operation (`${user} ${op}`), for the embedded replay. */
type Captures = Map<string, { sequences: Captured[]; user: Prepared }>;

/**
 * The embedded database inside the service at `pid`, reached at its socket as the project's own client;
 * the services user's identifiers (user, bearer token, list) swapped for the embedded user's.
 */
function embeddedTarget(pid: number, op: OpName, from: Prepared, to: Prepared): ReplayTarget {
  replays += 1;
  const swaps: Array<[string, string]> = [
    [from.userId, to.userId],
    [tokenKey(from.token), tokenKey(to.token)],
  ];
  // A list id is a bare number: swapped in the list add only, where no other parameter is one (a rating's value would be).
  const list = op === 'list item' && from.listId !== undefined && to.listId !== undefined ? { from: String(from.listId), to: String(to.listId) } : undefined;
  return {
    pool: { host: KEPT_DIR, port: EMBEDDED_PORT, user: 'postgres', database: 'postgres', application_name: OWN_CLIENT },
    dbCpu: async () => new Map([[pid, processCpuMs(pid)]]),
    // Each replay's own names: the session keeps those of the replays before it, which a new pool does not know of.
    name: (n) => `replay${replays}_${n}`,
    // The job queue's own statements, which the proxy caught between a request's: services mode only.
    skip: /\bpgboss\./,
    remap: (v) => (list && v === list.from ? list.to : swaps.reduce((out, [a, b]) => out.replaceAll(a, b), v)),
  };
}

async function benchMode(mode: Mode, result: WriteCostBench, captures: Captures): Promise<void> {
  const databaseUrl = mode === 'services' ? benchDatabaseUrl() : undefined;
  if (mode === 'embedded') fs.mkdirSync(KEPT_DIR, { recursive: true });
  result.titles = await prepareCatalog({ databaseUrl, dataDir: mode === 'embedded' ? KEPT_DIR : tempDataDir() });
  // Embedded: this process holds the database while it loads the users, then lets it go to the service.
  let db: Database | undefined = await openDatabase({ databaseUrl, dataDir: databaseUrl ? '/nonexistent' : KEPT_DIR });
  let proxy: PgWireProxy | undefined;
  let admin: pg.Client | undefined;
  let service: Service | undefined;
  let appId: string | undefined;
  let users = new Map<UserName, Prepared>();
  const cleanUp = async (d: Database) => {
    const em = d.orm.em.fork();
    for (const u of users.values()) await query(em, { text: 'delete from app_user where id = $1', params: [u.userId] });
    if (appId) await query(em, { text: 'delete from app where client_id = $1', params: [appId] });
    // The kept embedded database: its dead rows gone for the next run (services mode: vacuumAnalyze below).
    if (!databaseUrl) await query(em, { text: 'vacuum analyze', params: [] });
  };
  try {
    await migrate(db.orm);
    const cat = await readCatalog(db);
    ({ users, appId } = await prepareUsers(db, databaseUrl ?? '', cat, result.loadSeconds, mode));
    if (databaseUrl) {
      // Statistics as autovacuum would have them after such a load (the plans then are the ones measured).
      await vacuumAnalyze(databaseUrl);
      const u = new URL(databaseUrl);
      proxy = await PgWireProxy.start({ host: u.hostname, port: Number(u.port || 5432) });
      admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      const viaProxy = new URL(databaseUrl);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      service = await startService({ DATABASE_URL: viaProxy.toString(), ...JOBS_OFF });
    } else {
      await query(db.orm.em.fork(), { text: 'analyze', params: [] });
      // One owner of an embedded database at a time: this process lets it go before the service opens it.
      await db.close();
      db = undefined;
      service = await startService({ DATA_DIR: KEPT_DIR, DATABASE_URL: '', REDIS_URL: '', ...JOBS_OFF });
    }
    const env: Env = { service, admin, proxy };
    // One pool of titles per operation and user: every run of it goes on from where the one before stopped.
    const pools = new Map<string, () => Step | undefined>();
    for (const [name, u] of users) {
      const list = await request('POST', `${service.url}${P}/lists`, { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' }, JSON.stringify({ name: 'Bench writes' }), new http.Agent());
      if (list.status >= 300) throw new Error(`POST /lists answered ${list.status}: ${list.body.slice(0, 200)}`);
      u.listId = (JSON.parse(list.body) as { id: number }).id;
      for (const op of OP_NAMES) pools.set(`${name} ${op}`, steps(op, cat, u.listId));
    }
    // Every path of the service warm before the first measured run (else the first user measured pays for its compilation).
    // Long enough for V8 to optimize each path's hot functions (its background compiles would otherwise land in the first runs).
    for (const [name, u] of users) for (const op of OP_NAMES) await drive(service.url, u.token, pools.get(`${name} ${op}`)!, 1, FIRST_WARM_SECONDS, undefined, WARM_REQUESTS);
    // Then the compilation the warm-up set off, finished: V8 optimizes hot code (PGlite's WebAssembly
    // above all) on background threads, and that CPU would otherwise count against the first runs.
    result.settled[mode] = await settle(service.child.pid!);
    for (const [name, u] of users) {
      for (const op of OP_NAMES) {
        const next = pools.get(`${name} ${op}`)!;
        let captured: Captured[] = [];
        for (const connections of CONNECTIONS) {
          const m = await measureService(env, u.token, next, connections);
          if (connections === 1) captured = m.captured;
          const cell: Cell = { mode, user: name, op, connections, service: m.figures };
          result.cells.push(cell);
          process.stderr.write(`${describe(cell)}\n`);
        }
        if (databaseUrl && admin && captured.length) {
          captures.set(`${name} ${op}`, { sequences: captured, user: u });
          const server = admin;
          const target: ReplayTarget = { pool: { connectionString: databaseUrl, application_name: BARE_APP }, dbCpu: () => backendCpu(server, { application: BARE_APP }), name: (n) => n, remap: (v) => v };
          for (const connections of CONNECTIONS) {
            const cell = cellOf(result, mode, name, op, connections)!;
            cell.bare = await replay(target, captured, connections, SECONDS);
            process.stderr.write(`${describe(cell)}\n`);
          }
        }
        // Embedded mode: the statements services mode captured, replayed into the embedded database inside
        // the service (one connection: PGlite runs one session), so PGlite's cost of the same statements is
        // beside the native server's.
        const from = captures.get(`${name} ${op}`);
        const cell = cellOf(result, mode, name, op, 1);
        if (!databaseUrl && from && cell) {
          cell.bare = await replay(embeddedTarget(service.child.pid!, op, from.user, u), from.sequences, 1, SECONDS);
          process.stderr.write(`${describe(cell)}\n`);
        }
      }
    }
    if (proxy) result.slowest = [...proxy.times].map(([text, t]) => ({ text, ...t })).sort((a, b) => b.ms - a.ms).slice(0, 10);
  } finally {
    await service?.stop();
    await admin?.end();
    await proxy?.close();
    db ??= await openDatabase({ databaseUrl: undefined, dataDir: KEPT_DIR });
    await cleanUp(db);
    await db.close();
    if (databaseUrl) await vacuumAnalyze(databaseUrl);
  }
}

export async function benchWriteCost(): Promise<WriteCostBench> {
  const started = Date.now();
  const result: WriteCostBench = { titles: 0, cells: [], slowest: [], loadSeconds: {}, settled: {}, seconds: 0 };
  const captures: Captures = new Map();
  for (const mode of MODES) await benchMode(mode, result, captures);
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

const f = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(v < 10 ? 2 : 1));
const opLabel = (op: OpName) => OPS.find((o) => o.name === op)!.label;

function describe(c: Cell): string {
  const s = c.service;
  const head = `  ${c.mode} ${c.user} ${opLabel(c.op)} x${c.connections}:`.padEnd(62);
  const service = `${s.requestsPerSecond.toFixed(0)} req/s p50 ${f(s.p50)} p99 ${f(s.p99)} ms; CPU ${f(s.serviceMs)} (other threads ${f(s.otherThreadsMs)}) + ${f(s.pgMs)} ms${s.statements === undefined ? '' : `; ${f(s.statements)} statements, ${f(s.roundTrips)} round trips`}`;
  const b = c.bare;
  return b ? `${head} bare ${b.requestsPerSecond.toFixed(0)} req/s p50 ${f(b.p50)} p99 ${f(b.p99)} ms; CPU ${f(b.selfMs)} + ${f(b.pgMs)} ms; ${b.errors} errors${b.firstError ? ` (first: ${b.firstError})` : ''}` : `${head} ${service}`;
}

export function printWriteCost(b: WriteCostBench): void {
  console.log(`\nwrite cost (${b.titles} titles; ${SECONDS} s per run; CPU per request: service (or bare client) + its PostgreSQL backends)`);
  for (const [k, s] of Object.entries(b.loadSeconds)) console.log(`  ${k} user loaded in ${s!.toFixed(1)} s`);
  for (const [k, s] of Object.entries(b.settled)) console.log(`  ${k} service ${settledText(s!)}`);
  for (const c of b.cells) {
    console.log(describe({ ...c, bare: undefined }));
    if (c.bare) console.log(describe(c));
  }
  for (const t of targets(b)) console.log(`  target: ${t.target}: ${t.measured}${t.met ? '' : ` (not met: ${t.miss})`}`);
}

const settledText = (s: Settled) => `${s.quiet ? 'quiet' : 'not quiet'} ${s.seconds.toFixed(1)} s after its warm-up (${s.cpuMs.toFixed(0)} ms of CPU meanwhile)`;

const cellOf = (b: WriteCostBench, mode: Mode, user: UserName, op: OpName, connections: number) => b.cells.find((c) => c.mode === mode && c.user === user && c.op === op && c.connections === connections);
const total = (s: Figures) => s.serviceMs + s.pgMs;
/** The bare replay's CPU per request: its client + where its statements ran. */
const bareTotal = (c: Cell) => c.bare!.selfMs + c.bare!.pgMs;

function targets(b: WriteCostBench): Target[] {
  const out: Target[] = [];
  const writes = OPS.filter((o) => o.write && OP_NAMES.includes(o.name));
  for (const o of writes) {
    for (const user of USERS) {
      const c = cellOf(b, 'services', user, o.name, 1);
      if (!c) continue;
      out.push(atMost(ISSUE, `${o.label}, ${user} user, 1 connection: service process CPU at most ${LIMITS.serviceWriteMs} ms a request`, c.service.serviceMs, LIMITS.serviceWriteMs));
      if (c.bare) out.push(atMost(ISSUE, `${o.label}, ${user} user, 1 connection: service + PostgreSQL CPU at most ${LIMITS.bareRatio}x the bare replay's (client + PostgreSQL)`, total(c.service) / bareTotal(c), LIMITS.bareRatio, 'x'));
    }
    const light = cellOf(b, 'services', 'light', o.name, 1);
    const heavy = cellOf(b, 'services', 'very heavy', o.name, 1);
    if (light && heavy) out.push(atMost(ISSUE, `${o.label}, 1 connection: service + PostgreSQL CPU of the very heavy user at most ${LIMITS.flat}x the light user's`, total(heavy.service) / total(light.service), LIMITS.flat, 'x'));
  }
  for (const o of OPS.filter((x) => OP_NAMES.includes(x.name))) {
    const s = cellOf(b, 'services', 'light', o.name, 1);
    const e = cellOf(b, 'embedded', 'light', o.name, 1);
    if (s && e) out.push(atMost(ISSUE, `${o.label}, light user, 1 connection: embedded CPU at most ${LIMITS.embeddedRatio}x services mode's (service + PostgreSQL)`, e.service.serviceMs / total(s.service), LIMITS.embeddedRatio, 'x'));
  }
  return out;
}

/**
 * The figures that bound the targets, light user, 1 connection: PGlite's cost of the same statements
 * (embedded replay over services replay), and the service CPU a write would have to stay under for the
 * bare-ratio target (LIMITS.bareRatio x the replay, less the PostgreSQL CPU the service's statements
 * took) beside the whole service CPU of a title read (the pipeline with two statements).
 */
function reasons(b: WriteCostBench): Array<{ label: string; value: string }> {
  const out: Array<{ label: string; value: string }> = [];
  const read = cellOf(b, 'services', 'light', 'title detail', 1);
  for (const o of OPS.filter((x) => OP_NAMES.includes(x.name))) {
    const s = cellOf(b, 'services', 'light', o.name, 1);
    const e = cellOf(b, 'embedded', 'light', o.name, 1);
    if (s?.bare && e?.bare) out.push({ label: `${o.label}, light user: the same statements replayed bare, embedded / services CPU`, value: `${(bareTotal(e) / bareTotal(s)).toFixed(2)}x (${f(bareTotal(e))} / ${f(bareTotal(s))} ms)` });
    if (o.write && s?.bare && read) out.push({ label: `${o.label}, light user: the service CPU a ${LIMITS.bareRatio}x ratio leaves it, beside a title read's`, value: `${f(LIMITS.bareRatio * bareTotal(s) - s.service.pgMs)} ms, against ${f(read.service.serviceMs)} ms for the read (${f(s.service.serviceMs)} ms measured)` });
  }
  return out;
}

export function writeCostSection(b: WriteCostBench): Section {
  const row = (c: Cell) => {
    const s = c.service;
    const ratio = c.bare ? `${(total(s) / bareTotal(c)).toFixed(2)}x` : '';
    const bare = c.bare ? `${c.bare.requestsPerSecond.toFixed(0)} req/s, ${f(c.bare.p50)} / ${f(c.bare.p99)} ms; ${f(c.bare.selfMs)} + ${f(c.bare.pgMs)} ms${c.bare.errors ? `; ${c.bare.errors} errors` : ''}` : '';
    return [`${opLabel(c.op)}`, c.mode, c.user, String(c.connections), s.requestsPerSecond.toFixed(0), `${f(s.p50)} / ${f(s.p99)} ms`, `${f(s.serviceMs)} (${f(s.otherThreadsMs)})`, c.mode === 'embedded' ? 'inside' : f(s.pgMs), s.statements === undefined ? 'not counted' : `${f(s.statements)} / ${f(s.roundTrips)}`, bare, ratio];
  };
  const flat = OPS.filter((o) => o.write).flatMap((o) =>
    MODES.flatMap((mode) => {
      const l = cellOf(b, mode, 'light', o.name, 1);
      const h = cellOf(b, mode, 'very heavy', o.name, 1);
      return l && h ? [{ label: `${o.label}, ${mode}: very heavy / light CPU per request (1 connection)`, value: `${((h.service.serviceMs + h.service.pgMs) / (l.service.serviceMs + l.service.pgMs)).toFixed(2)}x` }] : [];
    }),
  );
  return section(
    'Write cost: single writes against bare statements',
    `Single writes through the platform API (one title a request, never one the user already has: no dedup path) and a title-detail read, for a light user (${SIZES.light.toLocaleString('en')} watches) and a very heavy one (${SIZES['very heavy'].toLocaleString('en')}, loaded through the core's logWatches), over ${b.titles.toLocaleString('en')} titles, at 1 and 16 connections, ${SECONDS} s a run after a ${WARM_SECONDS} s warm-up (once a service is up, each path is first warmed for ${FIRST_WARM_SECONDS} s, and the idle service is then left until its CPU is quiet, so V8's background compiles of the warm-up do not land in a run); the service's timer jobs off. The playback row is a start and its stop (progress 0.95, which logs the watch) counted as one request. Services mode: the service reaches PostgreSQL through a wire-protocol proxy in the bench process that counts statements (Execute, Query) and round trips (Sync, Query) and captures each request's statements in the 1-connection run; the baseline replays those captured sequences through bare \`pg\` at the same concurrency, each inside its own BEGIN ... COMMIT (the service's transaction control replaced by the replay's, so the baseline pays the commit the service pays): a replayed write runs on the state the service's own write left (a replayed watch is a second watch of the title; a rating replayed with the value the service set writes no rating row, so that baseline is the cheaper), what the replays write stays until the bench users are deleted, and replay errors are counted. Server time per statement is from its Execute (or Query) reaching the proxy, or the statement before it on that connection ending, to its completion: lock waits included (16 connections of one user queue on the per-user history lock and on the list row). CPU per request from /proc: the service process (all its threads; in brackets, those beside the main thread) + its PostgreSQL backends; baseline: the bench process (the bare client) + its backends. Embedded mode: the service process alone (PostgreSQL is inside it), statements not counted${EMBEDDED_USERS.length < 2 ? ', the light user only' : ''}; its baseline replays the sequences services mode captured (the job queue's statements left out, the embedded user's id, token and list swapped in) through bare \`pg\` at the embedded database's socket, inside the idle service, at 1 connection (PGlite runs one session): the bench process + the service process. The embedded replay over the services replay is what PGlite costs for the same statements against the native server, whatever the service around them does.`,
    {
      values: [
        ...Object.entries(b.loadSeconds).map(([k, s]) => ({ label: `Load of the ${k} user (logWatches in-process)`, value: `${s!.toFixed(1)} s` })),
        ...Object.entries(b.settled).map(([k, s]) => ({ label: `The ${k} service, idle after its warm-up, went`, value: settledText(s!) })),
        ...flat,
        ...reasons(b),
        ...b.slowest.map((t, i) => ({ label: `Server time, statement ${i + 1} by total (services mode, all runs)`, value: `${t.count} executions, ${f(t.ms / t.count)} ms each: \`${t.text.replace(/\s+/g, ' ').slice(0, 140)}\`` })),
      ],
      targets: targets(b),
      tables: [
        {
          caption: 'CPU in ms per request; service CPU (of it, threads other than the main one: V8\'s background compilers and GC helpers). Bare: throughput, p50 / p99, CPU of the bench process + its backends (embedded: + the service process, where the database runs). Ratio: service + PostgreSQL CPU over the bare replay\'s.',
          header: ['Operation', 'Mode', 'User', 'Connections', 'req/s', 'p50 / p99', 'Service CPU', 'PostgreSQL CPU', 'Statements / round trips', 'Bare replay', 'CPU ratio'],
          rows: b.cells.map(row),
        },
      ],
    },
  );
}

if (import.meta.main) printWriteCost(await benchWriteCost());
