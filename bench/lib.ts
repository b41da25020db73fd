// Shared pieces of the benchmarks: a catalog database of the demo size, the service in a child process,
// latency statistics, and the bare-`pg` baseline runner.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { demoSources, importCatalog } from '../src/core/catalog/import/index.ts';
import { catalogSize } from '../src/core/catalog/service.ts';
import { recordGrantUse } from '../src/core/connected-apps/service.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { statementName } from '../src/core/db/prepared.ts';
import { query, type Sql } from '../src/core/db/sql.ts';
import { RateLimits } from '../src/core/limits/limiter.ts';
import { createLogger } from '../src/core/log.ts';
import { artifactKey } from '../src/oauth/adapter.ts';
import { createOAuth } from '../src/oauth/index.ts';

export const root = path.resolve(import.meta.dirname, '..');
export const MIN_TITLES = 40_000;

/** The server's database for benchmarks: `mts_bench` beside BENCH_DATABASE_URL / DATABASE_URL's. */
export function benchDatabaseUrl(): string {
  const base = new URL(process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  base.pathname = '/mts_bench';
  return base.toString();
}

async function ensureDatabaseExists(url: string) {
  const admin = new URL(url);
  const name = admin.pathname.slice(1);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [name]);
  if (!rowCount) await c.query(`create database "${name}"`);
  await c.end();
}

/** Migrates and fills the catalog (demo sources) unless it already holds MIN_TITLES titles. */
export async function prepareCatalog(target: { databaseUrl?: string; dataDir: string }): Promise<number> {
  if (target.databaseUrl) await ensureDatabaseExists(target.databaseUrl);
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    if ((await catalogSize(em)) < MIN_TITLES) {
      process.stderr.write('importing the demo catalog for the benchmark...\n');
      await importCatalog(em, demoSources());
    }
    return await catalogSize(em);
  } finally {
    await db.close();
    if (target.databaseUrl) await vacuumAnalyze(target.databaseUrl);
  }
}

/**
 * Benchmarks delete what they seeded, and the database is kept between runs: without this, dead rows,
 * bloated indexes and stale statistics from earlier runs (a million-row change feed, say) change the
 * plans the next run measures (figures: docs/performance.md, 'Vacuum between benchmark runs').
 */
export async function vacuumAnalyze(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('vacuum analyze');
  } finally {
    await c.end();
  }
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mts-bench-'));
}

export type Service = { url: string; child: ChildProcess; stop(): Promise<void> };

/** A process's resident set size now (VmRSS) and its peak over its life (VmHWM), in KiB (Linux /proc). */
export function rssOf(pid: number | undefined): { rss: number; hwm: number } | null {
  if (!pid) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(/^\s*(\d+)/.exec(status.split(`${name}:`)[1] ?? '')?.[1] ?? Number.NaN);
    return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
  } catch {
    return null;
  }
}

// Peak RSS and heap of every service started since the last takeServicePeaks(): the report's memory
// figures per benchmark. RSS is sampled every 250 ms while it runs and read once more (VmHWM, the
// kernel's own peak) just before it is stopped, so a peak between samples is not missed; heap use is
// what the service reports of itself (heap-probe.ts) every 250 ms.
let servicePeakKiB = 0;
let servicePeakHeapBytes = 0;

/** The highest RSS and heap used of the services started since the last call, in MiB (null: none measured), and reset. */
export function takeServicePeaks(): { rssMiB: number | null; heapUsedMiB: number | null } {
  const peaks = { rssMiB: servicePeakKiB > 0 ? servicePeakKiB / 1024 : null, heapUsedMiB: servicePeakHeapBytes > 0 ? servicePeakHeapBytes / 2 ** 20 : null };
  servicePeakKiB = 0;
  servicePeakHeapBytes = 0;
  return peaks;
}

/**
 * The Node options `npm start` runs the service with, or `npm run admin` the CLI (package.json's
 * scripts: V8's heap sizing), so the benchmarked process is the deployed one.
 */
export function scriptOptions(script: 'start' | 'admin'): string[] {
  const entry = script === 'start' ? 'src/main.ts' : 'src/cli.ts';
  const line = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[script]!;
  const words = line.split(/\s+/);
  // `exec`: the shell npm runs the script with becomes node, so npm's signals reach the service.
  if (words[0] !== 'exec' || words[1] !== 'node' || words.at(-1) !== entry) throw new Error(`package.json ${script} script is not "exec node [options] ${entry}": ${line}`);
  return words.slice(2, -1);
}

/**
 * `node src/main.ts` as `npm start` runs it, with `env` over this process's environment and the heap
 * probe reporting into the peaks; its stderr inherited or piped. Its RSS is not sampled (sampleRss).
 */
export function spawnService(env: Record<string, string>, stderr: 'inherit' | 'pipe'): ChildProcess {
  // BENCH_CPU_PROF=dir: each service writes a V8 CPU profile there when it exits (bench/profile-summary.ts reads it).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, [...scriptOptions('start'), ...prof, '--import', path.join(root, 'bench/heap-probe.ts'), path.join(root, 'src/main.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', stderr, 'ipc'],
  });
  child.on('message', (m: { heapUsed?: number }) => {
    if (typeof m.heapUsed === 'number') servicePeakHeapBytes = Math.max(servicePeakHeapBytes, m.heapUsed);
  });
  return child;
}

/** Samples `child`'s RSS into the peak until the returned function is called (call it before stopping the child). */
export function sampleRss(child: ChildProcess): () => void {
  const note = () => {
    const r = rssOf(child.pid);
    // An exited process not yet reaped has a status without either line (NaN): it reads as nothing
    // (Math.max with a NaN would have made the whole peak NaN, reported as not measured).
    const read = r ? [r.hwm, r.rss].filter(Number.isFinite) : [];
    if (read.length) servicePeakKiB = Math.max(servicePeakKiB, ...read);
  };
  const timer = setInterval(note, 250);
  timer.unref();
  return () => {
    note();
    clearInterval(timer);
  };
}

/**
 * Starts `node src/main.ts` (the real process, access logs on, written to /dev/null). Rate limits are
 * off unless asked for: load from one address would be refused within a second, and what the limiter
 * costs is measured on its own (bench/limits.ts).
 */
export async function startService(env: Record<string, string>): Promise<Service> {
  // A benchmark that needs BASE_URL to name the port (the web app's sign-in returns there) passes PORT.
  const port = Number(env.PORT ?? 20_000 + Math.floor(Math.random() * 20_000));
  const child = spawnService({ PORT: String(port), HOST: '127.0.0.1', DEMO_DATA: 'off', LOG_LEVEL: 'info', RATE_LIMITS: 'off', ...env }, 'inherit');
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('service did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const stopSampling = sampleRss(child);
  return {
    url,
    child,
    stop: () => {
      stopSampling();
      return stopChild(child);
    },
  };
}

/** One request over `agent` (keep-alive): the answer's status and body. */
export function request(method: string, url: string, headers: Record<string, string>, body: string | undefined, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One POST of `body` over `agent` (keep-alive): the answer's status and body. */
export function post(url: string, headers: Record<string, string>, body: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return request('POST', url, headers, body, agent);
}

// CPU accounting: on a machine this small the question is where a request's CPU goes (the server, its
// PostgreSQL backends, the load generator itself), which throughput alone cannot tell on shared cores.

/**
 * A process's CPU time so far in ms: the sum of its threads' run time (Linux /proc/<pid>/task/<tid>/
 * schedstat, in ns). utime + stime of /proc/<pid>/stat count in 10 ms ticks, too coarse for a few
 * requests of a millisecond; a thread that ended is no longer counted (the service's threads live as long
 * as it does, a PostgreSQL backend has one).
 */
export function processCpuMs(pid: number): number {
  const t = threadCpuMs(pid);
  return t.main + t.other;
}

/** CPU ms so far of process `pid`'s main thread and of its other threads (V8's compilers and GC helpers, libuv's pool), from each thread's schedstat. */
export function threadCpuMs(pid: number): { main: number; other: number } {
  let main = 0;
  let other = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (Number(tid) === pid) main += ns;
      else other += ns;
    } catch {
      // the thread ended meanwhile
    }
  }
  return { main: main / 1e6, other: other / 1e6 };
}

/** The PostgreSQL backend pids serving the connections of process `pid`. */
export async function backendsOf(db: Database, pid: number): Promise<number[]> {
  const ports = execFileSync('ss', ['-tnpH', 'state', 'established', '( dport = :5432 )'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => Number(l.trim().split(/\s+/)[2]!.split(':').pop()));
  if (!ports.length) return [];
  const rows = await query<{ pid: number }>(db.orm.em.fork(), { text: `select pid from pg_stat_activity where client_port = any($1::int[])`, params: [ports] });
  return rows.map((r) => r.pid);
}

/** CPU ms so far of a server process, of each of its PostgreSQL backends, and of this process. */
export type CpuMark = { server: number; backends: Map<number, number>; self: number };

/** The CPU mark of `serverPid` (null where /proc cannot tell: not Linux, or the process is gone). */
export async function cpuMark(db: Database, serverPid: number | undefined): Promise<CpuMark | null> {
  if (!serverPid || !fs.existsSync(`/proc/${serverPid}/stat`)) return null;
  try {
    const backends = new Map<number, number>();
    for (const p of await backendsOf(db, serverPid)) backends.set(p, processCpuMs(p));
    const u = process.cpuUsage();
    return { server: processCpuMs(serverPid), backends, self: (u.user + u.system) / 1000 };
  } catch {
    return null;
  }
}

/** CPU ms between two marks: of the server, of its PostgreSQL backends together, of this process. */
export function cpuBetween(from: CpuMark, to: CpuMark): { server: number; backends: number; self: number } {
  let backends = 0;
  // Backends opened in between count from zero; those closed in between are lost (the pool keeps them).
  for (const [pid, ms] of to.backends) backends += ms - (from.backends.get(pid) ?? 0);
  return { server: to.server - from.server, backends, self: to.self - from.self };
}

/** SIGTERM and wait for the exit (at once when the child has already exited). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export type Figures = { requestsPerSecond: number; p50: number; p99: number; requests: number };

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * A request's statements for the baseline: one statement, or several run one after another (what the
 * service runs for one request, in its order); latency and throughput count requests, not statements.
 */
export type BareRequest = Sql | Sql[];

/** The same statements through a bare `pg` pool, `connections` loops at once, for `seconds`. */
export function bareBaseline(connectionString: string | { host: string; port: number }, statements: BareRequest[], connections: number, seconds: number): Promise<Figures> {
  const end = Date.now() + seconds * 1000;
  return runBare(connectionString, connections, (worker, i) => (Date.now() < end ? statements[(worker + i) % statements.length] : undefined));
}

/** Each request's statements exactly once, `connections` loops taking the next request in turn. */
export function bareOnce(connectionString: string, statements: BareRequest[], connections: number): Promise<Figures> {
  let next = 0;
  return runBare(connectionString, connections, () => statements[next++]);
}

/** A bare `pg` connection's settings: a PostgreSQL URL, or the embedded database's socket. */
export function bareConnection(target: string | { host: string; port: number }): pg.ClientConfig {
  return typeof target === 'string' ? { connectionString: target } : { ...target, user: 'postgres', database: 'postgres' };
}

/**
 * `connections` loops, each on its own connection (a request's statements may form a transaction), each
 * running the requests `take` gives it until it gives none.
 */
async function runBare(connectionString: string | { host: string; port: number }, connections: number, take: (worker: number, i: number) => BareRequest | undefined): Promise<Figures> {
  const pool = new pg.Pool({ ...bareConnection(connectionString), max: connections });
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      const client = await pool.connect();
      try {
        for (let i = 0, q = take(worker, 0); q !== undefined; q = take(worker, ++i)) {
          const t = process.hrtime.bigint();
          // Named where the service names it (core/db/prepared.ts), under the same name.
          for (const one of Array.isArray(q) ? q : [q]) await client.query({ name: one.prepare ? statementName(one.text) : undefined, text: one.text, values: one.params });
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      } finally {
        client.release();
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.end();
  latencies.sort((a, b) => a - b);
  return { requestsPerSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: latencies.length };
}

export function formatRow(label: string, f: Figures): string {
  return `${label.padEnd(44)} ${f.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   (${f.requests} requests)`;
}

export type IssueToken = (userId: string, clientId: string, scopes: string) => Promise<string>;

/**
 * Access tokens for bench users, minted by the service's own authorization server on `db` (the OAuth
 * flows themselves are tested with real clients, and bearer verification is measured in auth.ts).
 * `connected`: each grant also becomes the user's connected app, as the token endpoint records it (what
 * an app's webhooks deliver by).
 */
export async function tokenIssuer(db: Database, databaseUrl: string, opts: { connected?: boolean } = {}): Promise<IssueToken> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', BASE_URL: 'http://127.0.0.1' });
  const log = createLogger('silent');
  const { provider } = await createOAuth({ orm: db.orm, config, log, limits: new RateLimits({ prefix: 'bench', log, enabled: false }) });
  return async (userId, clientId, scopes) => {
    const grant = new provider.Grant({ accountId: userId, clientId });
    grant.addOIDCScope(scopes);
    const grantId = await grant.save();
    if (opts.connected) await recordGrantUse(db.orm.em.fork(), { grantId, grantKey: artifactKey('Grant', grantId), userId, clientId, scopes: scopes.split(' ') });
    const client = await provider.Client.find(clientId);
    if (!client) throw new Error(`bench app ${clientId} not found`);
    return new provider.AccessToken({ accountId: userId, client, grantId, scope: scopes, gty: 'authorization_code' }).save();
  };
}

/** GETs of `paths` (in turn) through the service with a bearer token: a 2 s warm-up, then `seconds`. */
export async function loadPaths(url: string, token: string, paths: string[], connections: number, seconds: number, headers: Record<string, string> = {}): Promise<Figures> {
  const opts = { url, connections, headers: { authorization: `Bearer ${token}`, ...headers }, requests: paths.map((path) => ({ method: 'GET' as const, path })) };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: seconds });
  if (r.non2xx || r.errors) throw new Error(`service answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

/**
 * GETs of `paths` through the service, each exactly once (the connections take the next path in turn),
 * without a warm-up: what first views cost, before anything the service or the database keeps is warm.
 */
export async function loadPathsOnce(url: string, token: string, paths: string[], connections: number): Promise<Figures> {
  let next = 0;
  const r = await autocannon({
    url,
    connections,
    amount: paths.length,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
  });
  if (r.non2xx || r.errors) throw new Error(`service answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  return { requestsPerSecond: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

/** Whether `wrk` (Debian package wrk) is installed: the lighter load generator below needs it. */
export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

/** wrk's latency figure ("812.00us", "14.52ms", "1.20s") in milliseconds. */
function wrkMs(figure: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(figure);
  if (!m) throw new Error(`unreadable wrk latency ${figure}`);
  return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[m[2] as 'us' | 'ms' | 's'];
}

/**
 * loadPaths with wrk, a load generator written in C, instead of autocannon: on this machine the load
 * generator shares the service's two cores, and autocannon (JavaScript) takes several times wrk's CPU per
 * request. The same paths in turn, connections, warm-up and length.
 */
export async function loadPathsWrk(url: string, token: string, paths: string[], connections: number, seconds: number): Promise<Figures> {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mts-wrk-')), 'paths.lua');
  fs.writeFileSync(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[((i - 1) % #paths) + 1], { authorization = ${JSON.stringify(`Bearer ${token}`)} })
end
`,
  );
  const run = (duration: number) => {
    const r = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wrk exited with ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  let out: string;
  try {
    run(2);
    out = run(seconds);
  } finally {
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  }
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: (.*)/.exec(out)?.[1];
  if (non2xx || errors) throw new Error(`service answered ${non2xx} non-2xx${errors ? ` and socket errors ${errors}` : ''}`);
  const field = (re: RegExp) => {
    const m = re.exec(out);
    if (!m) throw new Error(`unreadable wrk output: ${out}`);
    return m[1]!;
  };
  return {
    requestsPerSecond: Number(field(/Requests\/sec:\s+([\d.]+)/)),
    p50: wrkMs(field(/^\s+50%\s+(\S+)/m)),
    p99: wrkMs(field(/^\s+99%\s+(\S+)/m)),
    requests: Number(field(/(\d+) requests in/)),
  };
}

export type BenchCase = { name: string; paths: string[]; statements: BareRequest[] };
export type CaseResult = { case: string; service: Figures; bare: Figures; ratio: number };

/**
 * Each case through the service (GETs of its paths) and, as its baseline, its statements through a bare
 * `pg` pool, in the same run with the same concurrency; both warmed up first.
 */
export async function serviceVsBare(serviceUrl: string, databaseUrl: string, token: string, cases: BenchCase[], connections: number, seconds: number): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    await bareBaseline(databaseUrl, c.statements, connections, 2);
    const bare = await bareBaseline(databaseUrl, c.statements, connections, seconds);
    const service = await loadPaths(serviceUrl, token, c.paths, connections, seconds);
    results.push({ case: c.name, service, bare, ratio: service.requestsPerSecond / bare.requestsPerSecond });
  }
  return results;
}

/**
 * Recomputes item counts, breakdowns and preview posters of every list a seeded user owns, in one
 * statement (the service's own refreshCounts does one list at a time, which would take 10,000 statements
 * for a seeded user).
 */
export async function recountListsOf(em: EntityManager, ownerId: string): Promise<void> {
  await query(em, {
    text: `update list l set item_count = c.n, movie_count = c.movies, show_count = c.shows, anime_count = c.anime,
        preview_posters = list_preview_posters(l.id)
      from (select li.list_id, count(*)::int as n, count(*) filter (where t.category = 'movie')::int as movies,
          count(*) filter (where t.category = 'show')::int as shows, count(*) filter (where t.category = 'anime')::int as anime
        from list_item li join title t on t.id = li.title_id join list x on x.id = li.list_id where x.owner_id = $1 group by li.list_id) c
      where l.id = c.list_id`,
    params: [ownerId],
  });
}
