// The embedded database's socket cannot break the running service. PGlite runs one session for every
// connection, so a second client (psql, pg_dump) that changed a setting (search_path, a read-only
// default) would change it for the service's own statements. While the service owns the database, the
// public socket admits only this project's CLI (application_name mts-cli); other clients are refused
// with a message naming the safe way: `admin db:serve` with the server stopped. Embedded mode only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_SHARED_BUFFERS } from '../src/core/db/embedded.ts';
import { OWN_CLIENT } from '../src/core/db/embedded-guard.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { servicesMode } from './helpers/db.ts';
import { member, platform, type Member } from './helpers/seed.ts';

describe.skipIf(servicesMode)('the embedded database socket while the service runs', () => {
  let app: TestApp;
  let alice: Member;
  beforeAll(async () => {
    app = await startTestApp();
    alice = await member(app, 'socket_alice', ['lists:write', 'lists:read']);
  });
  afterAll(() => app?.stop());

  const connect = (applicationName?: string) =>
    new pg.Client({ host: app.db.embedded!.socketDir, port: 5432, user: 'postgres', database: 'postgres', ...(applicationName ? { application_name: applicationName } : {}) });

  it('refuses psql and pg_dump (and a client that gives no name), naming the safe way', async () => {
    for (const name of ['psql', 'pg_dump', undefined]) {
      const client = connect(name);
      const err = await client.connect().then(
        () => undefined,
        (e: Error & { code?: string }) => e,
      );
      await client.end().catch(() => undefined);
      expect(err?.message).toContain('in use by the service');
      expect(err?.message).toContain('admin -- db:serve');
      expect(err?.code).toBe('57P03');
    }
  });

  it("a client that tries to change the session's settings changes nothing the service sees", async () => {
    const client = connect('psql');
    try {
      await client.connect();
      await client.query(`set search_path to pg_catalog`);
      await client.query(`set default_transaction_read_only = on`);
    } catch {
      // refused at the door: the attack never reaches the session
    } finally {
      await client.end().catch(() => undefined);
    }
    const created = await platform(app, alice.token, 'POST', '/lists', { name: 'Still writable', description: '', isPublic: false });
    expect(created.status).toBe(200);
    expect((await platform(app, alice.token, 'GET', '/me/lists')).status).toBe(200);
  });

  it("admits this project's own CLI client, and the CLI works", async () => {
    const client = connect(OWN_CLIENT);
    await client.connect();
    try {
      expect((await client.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
    const res = await runAdmin(app, 'jobs:status', '--runs', '1');
    expect(res.code).toBe(0);
  });

  it('runs PostgreSQL with 32 MB of shared buffers (its WebAssembly memory never shrinks)', async () => {
    const client = connect(OWN_CLIENT);
    await client.connect();
    try {
      expect((await client.query<{ shared_buffers: string }>('show shared_buffers')).rows).toEqual([{ shared_buffers: EMBEDDED_SHARED_BUFFERS }]);
      expect(EMBEDDED_SHARED_BUFFERS).toBe('32MB');
    } finally {
      await client.end();
    }
  });

  it('db:serve refuses while the server owns the database', async () => {
    const res = await runAdmin(app, 'db:serve');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('the server is using the embedded database: stop it first, then run db:serve');
  });
});

describe.skipIf(servicesMode)('admin db:serve', () => {
  it('with no server running, serves the database to psql-like clients until interrupted', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-serve-'));
    const cli = path.resolve(import.meta.dirname, '../src/cli.ts');
    const child = spawn(process.execPath, [cli, 'db:serve'], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', BASE_URL: undefined, LOG_LEVEL: 'warn' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // 'close', not 'exit': only then has all of stderr been read, so a failure shows its whole message.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await expect.poll(() => stderr, { timeout: 60_000, interval: 100 }).toContain('serving the embedded database');
      const client = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres', application_name: 'psql' });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>('select count(*)::int as n from schema_migrations');
        expect(rows[0]!.n).toBeGreaterThan(0);
      } finally {
        await client.end();
      }
      child.kill('SIGINT');
      // On failure, the end of the CLI's stderr says why (an exception's message comes last).
      expect({ code: await exited, stderrEnd: stderr.slice(-3000) }).toEqual({ code: 0, stderrEnd: expect.any(String) });
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
