// A start that never misleads, as real processes: a start that cannot work stops with ONE line on
// stderr naming the setting to fix, and an exit code per kind (core/db/start-failure.ts, the README's
// table), never a stack or a JSON fatal, never a password; the port is claimed before any slow work and
// answers 503 until the service is ready; a missing database is created only when DATABASE_CREATE says
// so; and SIGTERM to `npm start` stops the service (npm's shell execs node: package.json).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../src/core/db/orm.ts';
import { freePort } from './helpers/app.ts';
import { exited, spawnChild, waitForLog, type ChildServer } from './helpers/child-server.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';
import { call } from './helpers/http.ts';
import { descendantsOf, processAlive } from './helpers/processes.ts';
import { until } from './helpers/wait.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database?.cleanup());

/** What a service started with `env` on `port` wrote and how it exited, once it has. */
async function failedStart(env: Record<string, string>, port?: number): Promise<{ code: number | null; stderr: string; child: ChildServer }> {
  const child = await spawnChild('failing start', { BASE_URL: 'http://127.0.0.1:3000', DATA_DIR: database.dataDir, DEMO_DATA: 'off', ...env }, port ? { port } : {});
  try {
    const code = await exited(child.process);
    return { code, stderr: child.stderr(), child };
  } finally {
    await child.kill();
  }
}

/** A TCP port with a listener of this test's on it, until `close`. */
async function occupiedPort(): Promise<{ port: number; close(): Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return { port: (holder.address() as net.AddressInfo).port, close: () => new Promise((resolve) => holder.close(() => resolve())) };
}

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

it('a busy port: one line naming PORT, exit 5, before the database is even opened', async () => {
  const held = await occupiedPort();
  try {
    // An empty data directory: a start that got as far as the database would have made one in it.
    const dataDir = fs.mkdtempSync(path.join(database.dataDir, 'empty-'));
    const r = await failedStart({ DATA_DIR: dataDir, ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}) }, held.port);
    expect(r.stderr).toBe(`cannot listen on PORT ${held.port} on HOST 127.0.0.1: the port is in use by another process; stop it or choose another PORT\n`);
    expect(r.code).toBe(5);
    expect(r.child.logs).toEqual([]);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  } finally {
    await held.close();
  }
});

it('an unreachable database: one line naming DATABASE_URL without its password, exit 3', async () => {
  const closed = await freePort();
  const r = await failedStart({ DATABASE_URL: `postgres://tracker:s3cret-pw@127.0.0.1:${closed}/tracker` });
  expect(r.stderr).toBe(`cannot reach the database at DATABASE_URL (postgres://tracker:***@127.0.0.1:${closed}/tracker): connection refused (nothing listens on that host and port)\n`);
  expect(r.code).toBe(3);
  // The port was claimed first and given back; nothing but that was logged.
  expect(r.child.logs.map((l) => l.msg)).toEqual(['port claimed: answering 503 until started']);
});

describe.runIf(servicesMode)('a database that does not exist (services mode)', () => {
  const name = `mts_missing_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const url = () => {
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    return u;
  };
  const exists = async () => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      return ((await c.query('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0;
    } finally {
      await c.end();
    }
  };
  afterAll(async () => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    await c.query(`drop database if exists "${name}" with (force)`);
    await c.end();
  });

  it('stops with one line naming DATABASE_URL and the command that creates it, exit 4, and creates nothing', async () => {
    const u = url();
    const r = await failedStart({ DATABASE_URL: u.toString() });
    const user = decodeURIComponent(u.username) || process.env.USER || '';
    expect(r.stderr).toBe(
      `database "${name}" does not exist on ${u.hostname}:${u.port || 5432} (DATABASE_URL ${u.toString()}): ` +
        `create it with \`createdb -h ${u.hostname} -p ${u.port || 5432} -U ${user} ${name}\` (SQL: CREATE DATABASE "${name}"), ` +
        'or start once with DATABASE_CREATE=true to have the service create it\n',
    );
    expect(r.code).toBe(4);
    expect(await exists()).toBe(false);
  });

  it('is created, and logged, when DATABASE_CREATE=true', async () => {
    const port = await freePort();
    const child = await spawnChild('created', { BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: database.dataDir, DATABASE_URL: url().toString(), DATABASE_CREATE: 'true', DEMO_DATA: 'off', REDIS_KEY_PREFIX: `created${process.pid}` }, { port });
    try {
      await waitForLog(child, '"listening"', (l) => l.msg === 'listening');
      expect(child.logs.find((l) => l.msg === 'database created (DATABASE_CREATE=true)')).toMatchObject({ database: name });
      expect(await exists()).toBe(true);
      expect((await call(child.url, '/readyz')).body).toEqual({ status: 'ready', database: 'ok', writes: 'ok' });
    } finally {
      expect((await child.stop()).code).toBe(0);
    }
  });
});

describe.runIf(servicesMode)('before it is ready (services mode)', () => {
  let holder: pg.Client;
  beforeAll(async () => {
    // The schema exists, so start-up's migration step reads schema_migrations, which this test locks.
    const db = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    await migrate(db.orm);
    await db.close();
    holder = new pg.Client({ connectionString: database.databaseUrl });
    await holder.connect();
  });
  afterAll(() => holder?.end());

  it('the port answers 503 in the envelope (readiness: the step under way; liveness: 200), then the service', async () => {
    await holder.query('begin');
    await holder.query('lock table schema_migrations in access exclusive mode');
    const port = await freePort();
    const child = await spawnChild('held at migrations', { BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl!, DEMO_DATA: 'off', RATE_LIMITS: 'on', REDIS_KEY_PREFIX: `held${process.pid}` }, { port });
    try {
      await waitForLog(child, '"port claimed"', (l) => l.msg === 'port claimed: answering 503 until started');
      await until('readiness to say migrations', async () => (await call(child.url, '/readyz')).body.step === 'applying migrations', 60_000);
      const ready = await call(child.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'starting', step: 'applying migrations' });
      expect(await call(child.url, '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });

      const platform = await call(child.url, '/api/platform/v1/me');
      expect(platform.status).toBe(503);
      expect(platform.headers.get('retry-after')).toBe('2');
      expect(platform.body).toEqual({ error: 'server_error', message: 'The service is starting (applying migrations); retry shortly', request_id: platform.headers.get('x-service-request-id'), retry_after: 2 });
      expect(platform.body.request_id).toMatch(/^req_/);
      // Counted like any unauthenticated platform request: the rate-limit headers of every platform answer.
      expect(Number(platform.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(platform.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(Number(platform.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      const pub = await call(child.url, '/api/public/v1/catalog/search?q=spirited');
      expect(pub.status).toBe(503);
      expect(pub.body).toEqual({ message: 'The service is starting (applying migrations); retry shortly' });
      expect(child.logs.some((l) => l.msg === 'listening')).toBe(false);

      await holder.query('commit');
      await waitForLog(child, '"listening"', (l) => l.msg === 'listening');
      expect(await call(child.url, '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
      expect((await call(child.url, '/api/platform/v1/me')).status).toBe(401);
    } finally {
      await holder.query('rollback').catch(() => {});
      await child.kill();
    }
  });
});

it('SIGTERM to `npm start` stops the service: the port is closed and no process of the tree is left', async () => {
  const port = await freePort();
  const child = await spawnChild(
    'npm start',
    { BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: database.dataDir, ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}), DEMO_DATA: 'off', REDIS_KEY_PREFIX: `npm${process.pid}` },
    { port, npm: true },
  );
  const npmPid = child.process.pid!;
  let tree: number[] = [];
  try {
    await waitForLog(child, '"listening"', (l) => l.msg === 'listening', 120_000);
    expect((await call(child.url, '/healthz')).status).toBe(200);
    tree = descendantsOf(npmPid);
    expect(tree.some((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('src/main.ts'))).toBe(true);

    child.process.kill('SIGTERM');
    expect(await exited(child.process)).toBe(0);
    expect(child.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    expect(await refused(port)).toBe(true);
    expect([npmPid, ...tree].filter(processAlive)).toEqual([]);
    // npm prints nothing on stderr for a service that stopped cleanly.
    expect(child.stderr()).toBe('');
  } finally {
    await child.kill();
    for (const pid of tree) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
});
