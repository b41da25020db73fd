// Two real app processes (`node src/main.ts`) on one PostgreSQL database and one Redis, behind one
// origin (a tiny round-robin load balancer: BASE_URL and the OAuth issuer are the same on both), as a
// deployment of several instances runs. Shows that the instances share what must be shared: rate-limit
// buckets, playback events, scheduled jobs (each run on one instance only), and OAuth flows that start on
// one instance and finish on the other. Services mode only: the embedded database has a single owner.
import * as client from 'openid-client';
import { EventSource, type FetchLike } from 'eventsource';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { startChild, type ChildServer } from './helpers/child-server.ts';
import { authorizationUrl, REDIRECT, type CodeClient } from './helpers/code-flow.ts';
import { servicesMode, type TestDatabase } from './helpers/db.ts';
import { call, type Answer } from './helpers/http.ts';
import { startLoadBalancer, type LoadBalancer } from './helpers/instances.ts';
import { approveDevice, authorizeInBrowser, makeApp, makeUser, postJson } from './helpers/oauth.ts';
import { seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';
import { until } from './helpers/wait.ts';

const me = (i: ChildServer, token: string) => call(i.url, '/api/platform/v1/me', { token });

describe.skipIf(!servicesMode)('several instances on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let lb: LoadBalancer;
  let a: ChildServer;
  let b: ChildServer;
  let browser: Browser;
  /** A user's token for the playback stream, minted before the instances start. */
  let viewerToken: string;
  /** Apps for the OAuth flows (public clients). */
  let deviceApp: { client_id: string };
  let codeApp: { client_id: string; allowed_scopes: string[] };

  beforeAll(async () => {
    if (!process.env.REDIS_URL) throw new Error('services mode tests need REDIS_URL');
    lb = await startLoadBalancer();
    // Migrate, seed and make users, apps and a token in-process on this file's new database (with the
    // fleet's issuer), then leave the database to the two instances.
    const seeder = await startTestApp({ BASE_URL: lb.url });
    database = seeder.database;
    try {
      await seedCatalog(seeder, { shows: 1 });
      const viewer = await makeUser(seeder, 'fleet_viewer');
      const viewerApp = await makeApp(seeder);
      viewerToken = await issueToken(seeder, { userId: viewer.id, clientId: viewerApp.client_id, scope: 'playback:write playback:read events:read' });
      await makeUser(seeder, 'fleet_oauth');
      deviceApp = await makeApp(seeder, { scopes: ['profile:read', 'history:read'] });
      codeApp = await makeApp(seeder, { scopes: ['profile:read', 'history:read'], redirectUri: REDIRECT });
    } finally {
      await seeder.close();
    }
    const shared = {
      DATABASE_URL: database.databaseUrl!,
      DATA_DIR: database.dataDir,
      REDIS_URL: process.env.REDIS_URL,
      // One prefix for both instances, unique to this run: parallel test files share the Redis.
      REDIS_KEY_PREFIX: `fleet${process.pid}_${Date.now().toString(36)}`,
      BASE_URL: lb.url,
      DEMO_DATA: 'off',
      RATE_LIMITS: 'on',
      // The trophy job ticks every second on both, so the jobs test sees many ticks quickly.
      TROPHY_INTERVAL_MS: '1000',
    };
    [a, b] = await Promise.all([startChild('instance a', shared), startChild('instance b', shared)]);
    lb.targets.push({ name: 'a', url: a.url }, { name: 'b', url: b.url });
    browser = await launchBrowser();
  });

  afterEach(() => lb?.pin(null));

  afterAll(async () => {
    await browser?.close();
    // Stopped as an operator stops them: SIGTERM, and both exit by themselves, with 0.
    const stopped = await Promise.allSettled([a?.stop(), b?.stop()]);
    await lb?.close();
    await database?.cleanup();
    for (const s of stopped) {
      if (s.status === 'rejected') throw s.reason;
      if (s.value) expect(s.value).toEqual({ code: 0, signal: null });
    }
  });

  it('share rate limits: 60 public requests alternating between them empty one bucket, the 61st is refused by either', async () => {
    const path = '/api/public/v1/catalog/trending';
    // The instances share a count only while Redis answers within their command timeout (250 ms). On a
    // loaded machine a command can miss it; that request is then counted in memory, and the instance
    // logs "redis unavailable". A run with such a request shows the fallback (rate-limits-redis.test.ts),
    // not the sharing: it is run again once its window has passed, at most three times in all.
    let answers: Answer[];
    for (let attempt = 1; ; attempt++) {
      const from = { a: a.logs.length, b: b.logs.length };
      answers = [];
      for (let i = 0; i < 60; i++) answers.push(await call((i % 2 ? b : a).url, path));
      const fellBack = [...a.logs.slice(from.a), ...b.logs.slice(from.b)].some((l) => String(l.msg).startsWith('redis unavailable'));
      if (!fellBack || attempt === 3) break;
      const reset = Math.max(...answers.map((r) => Number(r.headers.get('x-ratelimit-reset'))));
      await until('the rate-limit window to pass', () => Date.now() > (reset + 1) * 1000, 90_000, 500);
    }
    // Remaining counts down across both instances: 59, 58, ... 0.
    expect(answers.map((r) => r.status), JSON.stringify([...a.errors(), ...b.errors()]).slice(0, 2000)).toEqual(Array(60).fill(200));
    expect(answers.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    for (const r of answers) expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    // The 61st is refused whichever instance answers it.
    for (const instance of [a, b]) {
      const refused = await call(instance.url, path);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ message: expect.any(String) });
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
  });

  it('fan out playback events: a stream held on A gets what is posted to B', async () => {
    const received: Array<{ name: string; data: Record<string, unknown> }> = [];
    const withAuth: FetchLike = (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${viewerToken}` } });
    const es = new EventSource(`${a.url}/api/platform/v1/playback/events`, { fetch: withAuth });
    try {
      for (const name of ['playback.start', 'continue_watching.updated']) {
        es.addEventListener(name, (e) => received.push({ name, data: JSON.parse(e.data) as Record<string, unknown> }));
      }
      await new Promise<void>((resolve, reject) => {
        es.addEventListener('open', () => resolve(), { once: true });
        es.addEventListener('error', (e) => reject(new Error(`stream error ${String((e as { code?: number }).code)}`)), { once: true });
      });
      const started = await call(b.url, '/api/platform/v1/playback/start', {
        method: 'POST',
        token: viewerToken,
        body: {
          event_id: 'fleet-1',
          event_created_at: Date.now() - 1000,
          media_type: 'movie',
          title: 'Spirited Away',
          movie_db_id: SPIRITED_AWAY,
          playback_session_id: 'fleet-session',
          progress: 0.3,
        },
      });
      expect(started.status).toBe(200);
      await until('the events posted to B on the stream held on A', () => received.length >= 2, 30_000);
      expect(received.map((e) => e.name)).toEqual(['playback.start', 'continue_watching.updated']);
      expect(received[0]!.data).toMatchObject({ playback_session_id: 'fleet-session', state: 'playing', movie_db_id: SPIRITED_AWAY, progress: 0.3 });
    } finally {
      es.close();
    }
  });

  it('device flow: code asked on A, approved in the browser on B, tokens polled on A; refresh on B rotates them', async () => {
    // Every OAuth step goes through the load balancer (the URLs it answers with name the public origin),
    // pinned to the instance the step must land on; X-Served-By says which one answered.
    const deviceToken = () => postJson(`${lb.url}/api/platform/v1/auth/device/token`, { client_id: deviceApp.client_id, device_code: device.device_code });
    lb.pin('a');
    const asked = await postJson(`${lb.url}/api/platform/v1/auth/device/code`, { client_id: deviceApp.client_id, scope: 'profile:read' });
    expect(asked.status).toBe(200);
    expect(asked.headers.get('x-served-by')).toBe('a');
    const device = asked.body as { device_code: string; user_code: string; verification_uri_complete: string };
    expect(device.verification_uri_complete.startsWith(`${lb.url}/`)).toBe(true);
    const pending = await deviceToken();
    expect(pending.status).toBe(400);
    expect(pending.body).toMatchObject({ error: 'authorization_pending' });

    lb.pin('b');
    const context = await browser.newContext();
    try {
      const before = lb.served.length;
      await approveDevice(context, device.verification_uri_complete, 'fleet_oauth');
      expect(new Set(lb.served.slice(before))).toEqual(new Set(['b']));
    } finally {
      await context.close();
    }

    lb.pin('a');
    let tokens = await deviceToken();
    // Polled as a client does: a poll sooner than the interval after the last one is told to slow down.
    while (tokens.status === 400 && ['authorization_pending', 'slow_down'].includes(String(tokens.body.error))) {
      await new Promise((r) => setTimeout(r, 5_000));
      tokens = await deviceToken();
    }
    expect(tokens.headers.get('x-served-by')).toBe('a');
    lb.pin(null);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), scope: 'profile:read', username: 'fleet_oauth' });
    const issued = tokens.body as { access_token: string; refresh_token: string };

    // The token issued on A works on both.
    for (const instance of [a, b]) {
      const res = await me(instance, issued.access_token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ username: 'fleet_oauth' });
    }

    // Refreshed on B: new tokens, which work on A.
    lb.pin('b');
    const refreshed = await postJson(`${lb.url}/api/platform/v1/auth/refresh`, { client_id: deviceApp.client_id, refresh_token: issued.refresh_token });
    expect(refreshed.headers.get('x-served-by')).toBe('b');
    expect(refreshed.status).toBe(200);
    const rotated = refreshed.body as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(issued.refresh_token);
    expect(rotated.access_token).not.toBe(issued.access_token);
    expect((await me(a, rotated.access_token)).status).toBe(200);

    // The consumed refresh token, presented again on A, is refused there too, and revokes the chain.
    lb.pin('a');
    const replayed = await postJson(`${lb.url}/api/platform/v1/auth/refresh`, { client_id: deviceApp.client_id, refresh_token: issued.refresh_token });
    lb.pin(null);
    expect(replayed.headers.get('x-served-by')).toBe('a');
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ error: 'invalid_grant' });
    await expect.poll(async () => (await me(b, rotated.access_token)).status, { timeout: 30_000 }).toBe(401);
  });

  it('authorization code flow: authorized on A, code exchanged on B; the tokens work on both', async () => {
    lb.pin(null);
    const config = await client.discovery(new URL(lb.url), codeApp.client_id, undefined, client.None(), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    const code: CodeClient = { clientId: codeApp.client_id, secret: null, scopes: codeApp.allowed_scopes, config };
    const { url, verifier, state } = await authorizationUrl(code, 'profile:read history:read');
    const context = await browser.newContext();
    let callback: URL;
    try {
      lb.pin('a');
      const before = lb.served.length;
      callback = await authorizeInBrowser(context, url, { redirectUri: REDIRECT, username: 'fleet_oauth' });
      expect(new Set(lb.served.slice(before))).toEqual(new Set(['a']));
    } finally {
      await context.close();
    }
    lb.pin('b');
    const before = lb.served.length;
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(lb.served.slice(before)).toEqual(['b']);
    lb.pin(null);
    expect(tokens.scope).toBe('profile:read history:read');
    for (const instance of [a, b]) {
      const res = await me(instance, tokens.access_token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ username: 'fleet_oauth' });
    }
    // And its refresh, on A this time, rotates the token issued on B.
    lb.pin('a');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    lb.pin(null);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await me(b, refreshed.access_token)).status).toBe(200);
  });

  it('run each scheduled job once across the fleet: every tick on one instance, and the other takes over when that one stops', async () => {
    // Both instances schedule the trophy job every second (TROPHY_INTERVAL_MS=1000); pg-boss runs each
    // tick once. job_run has a row per run (src/jobs/index.ts says how to count them). Which instance
    // fetches a tick is pg-boss's choice, and with fixed-rate ticks and polls one instance can win every
    // tick for minutes; so the test pauses (SIGSTOP) the one that ran the latest tick and waits for the
    // other to carry on: a run frozen mid-way is failed at its expiry and retried there.
    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    type Run = { tick: Date | null; instance: string; attempt: number; started_at: Date };
    const runs = async () => (await db.query<Run>(`select tick, instance, attempt, started_at from job_run where job = 'trophies' order by started_at`)).rows;
    const pidOf = (r: Run) => r.instance.split(':')[1]!;
    const state = async () =>
      JSON.stringify({
        runs: (await db.query(`select split_part(instance, ':', 2) as pid, outcome, attempt, count(*)::int from job_run where job = 'trophies' group by 1, 2, 3`)).rows,
        queue: (await db.query(`select state::text, count(*)::int from pgboss.job where name = 'trophies' group by 1`)).rows,
      });
    let paused: ChildServer | undefined;
    try {
      await until(`trophy runs: ${await state()}`, async () => (await runs()).length >= 3, 60_000);
      const latest = (await runs()).at(-1)!;
      paused = pidOf(latest) === String(a.process.pid) ? a : b;
      const other = paused === a ? b : a;
      paused.process.kill('SIGSTOP');
      const since = new Date();
      await until(
        `trophy runs on ${other.name} while ${paused.name} is paused`,
        async () => (await runs()).filter((r) => pidOf(r) === String(other.process.pid) && r.started_at > since).length >= 3,
        60_000,
      );
    } finally {
      paused?.process.kill('SIGCONT');
    }
    try {
      const rows = await runs();
      expect(rows.every((r) => r.tick !== null)).toBe(true);
      // Every run came from one of the two app processes (instance = host:pid:random), and both ran some.
      const ours = new Set([a.process.pid, b.process.pid].map(String));
      for (const r of rows) expect(ours.has(pidOf(r))).toBe(true);
      expect(new Set(rows.map(pidOf)).size).toBe(2);
      // No tick's first attempt ran twice, across the instances (a retry, attempt > 0, may run anywhere).
      const ticks = rows.filter((r) => r.attempt === 0).map((r) => r.tick!.toISOString());
      expect(ticks.length).toBeGreaterThanOrEqual(5);
      expect(new Set(ticks).size).toBe(ticks.length);
      // And no other job's tick ran twice either.
      const doubled = await db.query(`select job, tick, count(*)::int as runs from job_run where tick is not null and attempt = 0 group by job, tick having count(*) > 1`);
      expect(doubled.rows).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
