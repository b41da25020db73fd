// What a read and a write cost in embedded mode against services mode, in CPU per request (/proc: the
// service process, plus its PostgreSQL backends in services mode; embedded PostgreSQL runs inside the
// service process). Reads: GET /title/{type}/{id} of distinct catalog titles; writes: POST /watch-history
// of distinct movies. The services run at once and are loaded in turn, in blocks, so a change of the
// machine's load falls on all alike. Sides: services mode, and embedded mode once per entry of
// EMBEDDED_VARIANTS (environment given to the service, e.g. DATABASE_PREPARED_STATEMENTS=off).
//
// `node bench/embedded-cost.ts` (Node 24). The embedded catalog is kept in BENCH_EMBEDDED_DIR (default
// .bench-data/embedded-cost; each embedded service runs on a copy of it). CPU_PROFILE_DIR: the services
// write V8 CPU profiles there (--cpu-prof), for where the CPU goes.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { openDatabase, type Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, prepareCatalog, processCpuMs, request, root, startService, tempDataDir, tokenIssuer, type Service } from './lib.ts';

const SCOPES = 'profile:read history:read history:write';
const P = '/api/platform/v1';
const BLOCKS = Number(process.env.BLOCKS ?? 6);
const READS_PER_BLOCK = Number(process.env.READS_PER_BLOCK ?? 500);
const WRITES_PER_BLOCK = Number(process.env.WRITES_PER_BLOCK ?? 150);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const KEPT_DIR = process.env.BENCH_EMBEDDED_DIR ?? path.join(root, '.bench-data', 'embedded-cost');
const VARIANTS: Array<Record<string, string>> = JSON.parse(process.env.EMBEDDED_VARIANTS ?? '[{}]') as Array<Record<string, string>>;

type TitleRef = { type: 'movie' | 'show'; movie_db_id: number };
type Side = { label: string; service: Service; db: Database | undefined; token: string; agent: http.Agent; readMs: number[]; writeMs: number[]; reads: number; writes: number; bad: number };

async function reader(db: Database, databaseUrl: string | undefined) {
  const em = db.orm.em.fork();
  const user = await createUser(em, { username: `bench_cost_${Math.random().toString(36).slice(2, 8)}`, password: 'bench-password-1' });
  const app = await createApp(em, { name: 'Embedded cost bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: SCOPES.split(' '), confidential: false, official: false });
  return { userId: user.id, token: await (await tokenIssuer(db, databaseUrl ?? ''))(user.id, app.client_id, SCOPES) };
}

async function titles(db: Database): Promise<{ all: TitleRef[]; movies: number[] }> {
  const em = db.orm.em.fork();
  const all = await query<TitleRef>(em, { text: 'select type, movie_db_id from title order by md5(id::text) limit 20000', params: [] });
  return { all, movies: all.filter((t) => t.type === 'movie').map((t) => t.movie_db_id) };
}

const cpuOf = async (s: Side) => (s.db ? await cpuMark(s.db, s.service.child.pid) : { server: processCpuMs(s.service.child.pid!), backends: new Map<number, number>(), self: 0 });

async function run(s: Side, items: Array<() => Promise<boolean>>): Promise<number> {
  if (!items.length) return Number.NaN;
  const from = (await cpuOf(s))!;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        if (!(await items[next++]!())) s.bad += 1;
      }
    }),
  );
  const cpu = cpuBetween(from, (await cpuOf(s))!);
  return (cpu.server + cpu.backends) / items.length;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function main() {
  const databaseUrl = benchDatabaseUrl();
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  fs.mkdirSync(KEPT_DIR, { recursive: true });
  await prepareCatalog({ dataDir: KEPT_DIR });
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const copies: string[] = [];
  const sides: Side[] = [];
  const profile = process.env.CPU_PROFILE_DIR;
  const nodeOptions = (label: string): Record<string, string> => (profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile} --cpu-prof-name=${label}.cpuprofile` } : {});
  const services = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  let catalog: { all: TitleRef[]; movies: number[] };
  try {
    catalog = await titles(services);
    const r = await reader(services, databaseUrl);
    const service = await startService({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench_cost_${process.pid}`, ...nodeOptions('services') });
    sides.push({ label: 'services', service, db: services, token: r.token, agent: new http.Agent({ keepAlive: true }), readMs: [], writeMs: [], reads: 0, writes: 0, bad: 0 });
    for (const [i, env] of VARIANTS.entries()) {
      const dir = tempDataDir();
      copies.push(dir);
      fs.cpSync(path.join(KEPT_DIR, 'pgdata'), path.join(dir, 'pgdata'), { recursive: true });
      const db = await openDatabase({ databaseUrl: undefined, dataDir: dir });
      const { token } = await reader(db, undefined).finally(() => db.close());
      const label = `embedded ${JSON.stringify(env)}`;
      const es = await startService({ DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', ...env, ...nodeOptions(`embedded-${i}`) });
      sides.push({ label, service: es, db: undefined, token, agent: new http.Agent({ keepAlive: true }), readMs: [], writeMs: [], reads: 0, writes: 0, bad: 0 });
    }
    let cursor = 0;
    let movieCursor = 0;
    // Block 0 warms up (V8's compiles of the service and of PGlite's WebAssembly) and is not counted.
    for (let b = 0; b <= BLOCKS; b += 1) {
      // Each side gets the same titles in a block; blocks take new ones (distinct titles over the run).
      const reads = catalog.all.slice(cursor, cursor + READS_PER_BLOCK);
      cursor += READS_PER_BLOCK;
      const movies = catalog.movies.slice(movieCursor, movieCursor + WRITES_PER_BLOCK);
      movieCursor += WRITES_PER_BLOCK;
      const order = b % 2 ? [...sides].reverse() : sides;
      for (const s of order) {
        // New connections each block: an idle keep-alive one may be closed by the server meanwhile.
        s.agent.destroy();
        s.agent = new http.Agent({ keepAlive: true });
        const auth = { authorization: `Bearer ${s.token}` };
        const readMs = await run(s, reads.map((t) => async () => (await request('GET', `${s.service.url}${P}/title/${t.type}/${t.movie_db_id}`, auth, undefined, s.agent)).status === 200));
        const writeMs = await run(
            s,
            movies.map((id) => async () => (await request('POST', `${s.service.url}${P}/watch-history`, { ...auth, 'content-type': 'application/json' }, JSON.stringify({ type: 'movie', movieDbId: id, watchedAt: '2024-01-02T03:04:05Z' }), s.agent)).status < 300),
        );
        if (b > 0) {
          s.readMs.push(readMs);
          s.writeMs.push(writeMs);
        }
      }
    }
    const base = sides[0]!;
    console.log(`blocks ${BLOCKS} x (${READS_PER_BLOCK} reads + ${WRITES_PER_BLOCK} writes), concurrency ${CONCURRENCY}; CPU ms per request (median over blocks [min-max]), ratio to services`);
    for (const s of sides) {
      const line = (v: number[], b: number[]) => `${median(v).toFixed(2)} [${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)}] x${(median(v) / median(b)).toFixed(2)}`;
      console.log(`${s.label.padEnd(50)} read ${line(s.readMs, base.readMs)}   write ${line(s.writeMs, base.writeMs)}   failed ${s.bad}`);
    }
  } finally {
    for (const s of sides) {
      s.agent.destroy();
      await s.service.stop();
    }
    await query(services.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_cost\\_%'`, params: [] });
    await services.close();
    for (const d of copies) fs.rmSync(d, { recursive: true, force: true });
  }
}

await main();
