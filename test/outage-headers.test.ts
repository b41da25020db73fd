// Every platform response carries the rate-limit headers (the platform OpenAPI document, Conventions): also on the 500 a request gets while
// the database is away (its token cannot even be checked), on REST and on /trpc alike, and the service
// answers normally again once the database returns. Services mode: the outage is this file's database
// refusing connections (ALLOW_CONNECTIONS false, its sessions ended), the server itself stays up.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { call } from './helpers/http.ts';
import { member, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

let app: TestApp;
let alice: Member;

beforeAll(async () => {
  if (!servicesMode) return;
  app = await startTestApp({ RATE_LIMITS: 'on' });
  alice = await member(app, 'alice_outage', ['profile:read']);
});
afterAll(() => app?.stop());

/** Runs `sql` on the server's maintenance connection (not this file's database). */
async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const dbName = () => new URL(app.database.databaseUrl!).pathname.slice(1);

const get = (path: string) => call(app, path, { token: alice.token });

function expectLimitHeaders(headers: Headers) {
  expect(Number(headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
  expect(headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
}

describe.skipIf(!servicesMode)('rate-limit headers while the database is away', () => {
  it('a 500 on REST and on /trpc carries X-RateLimit-*, in the envelope without internals; then 200 again', async () => {
    expect((await get('/api/platform/v1/me')).status).toBe(200);
    await admin(`alter database "${dbName()}" with allow_connections false`);
    try {
      await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${dbName()}'`);
      const rest = await get('/api/platform/v1/me');
      expectError(rest, 500, 'server_error');
      expectLimitHeaders(rest.headers);
      expect(JSON.stringify(rest.body)).not.toMatch(/allow_connections|not currently accepting|\.ts:|at /);

      const trpc = await get('/trpc/me.get');
      expect(trpc.status).toBe(500);
      expectLimitHeaders(trpc.headers);
    } finally {
      await admin(`alter database "${dbName()}" with allow_connections true`);
    }
    let again = await get('/api/platform/v1/me');
    await until('an answer once the database is back', async () => (again = await get('/api/platform/v1/me')).status === 200, 60_000, 200).catch(() => undefined);
    expect(again.status).toBe(200);
    expectLimitHeaders(again.headers);
  });
});
