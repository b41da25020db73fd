// Rate limits of several instances of one deployment, counted in Redis: two instances share one
// budget; when Redis dies, hangs or drops its connections each keeps serving and limiting from its own
// memory (logged once per outage, counted), never failing or holding a request, and when Redis returns
// they share again. Services mode only: two instances need one PostgreSQL (the embedded database has a
// single owner). The outages are of a redis-server this file starts itself, never the machine's.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { RedisServer } from './helpers/redis-server.ts';
import { memoryLog } from './helpers/memory-log.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { issueToken } from './helpers/tokens.ts';
import * as http from './helpers/http.ts';
import type { Answer, CallOptions } from './helpers/http.ts';
import { expectHeaders, many } from './helpers/limits.ts';
import { until } from './helpers/wait.ts';

/** Every answer of this file, to show that none failed because of Redis. */
const answers: Answer[] = [];

/** A request held by a Redis that does not answer fails the test here instead of at the test timeout. */
async function call(app: TestApp, path: string, init: CallOptions = {}): Promise<Answer> {
  const answer = await http.call(app, path, { ...init, timeoutMs: 5_000 });
  answers.push(answer);
  return answer;
}

const remaining = (a: Answer) => Number(a.headers.get('x-ratelimit-remaining'));


function expect429(a: Answer, limit: number) {
  expect(a.status).toBe(429);
  expect(a.body).toMatchObject({ error: 'rate_limited', message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
  expectHeaders(a, limit, 0);
  expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

const logged = (lines: Record<string, unknown>[], text: string) => lines.filter((l) => String(l.msg).includes(text)).length;

/** How often the waits below poll: a poll sends requests, which count against the budgets the tests read. */
const PROBE_EVERY_MS = 100;


describe.skipIf(!servicesMode)('rate limits in Redis, across instances', () => {
  // a and b on the machine's Redis; c and d on this file's own redis-server, which the tests kill.
  let a: TestApp;
  let b: TestApp;
  let c: TestApp;
  let d: TestApp;
  let redis: RedisServer;
  const logs = { c: memoryLog(), d: memoryLog() };

  beforeAll(async () => {
    if (!process.env.REDIS_URL) throw new Error('services mode tests need REDIS_URL');
    // One prefix per pair, shared by both of its instances and by no other test run.
    const run = `test${process.pid}_${Date.now().toString(36)}`;
    const shared = { RATE_LIMITS: 'on', REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `${run}_shared` };
    a = await startTestApp(shared);
    b = await startTestApp(shared, { sameDatabaseAs: a });
    redis = new RedisServer(await freePort());
    await redis.start();
    const own = { RATE_LIMITS: 'on', REDIS_URL: redis.url, REDIS_KEY_PREFIX: `${run}_own` };
    c = await startTestApp(own, { sameDatabaseAs: a, log: logs.c.log });
    d = await startTestApp(own, { sameDatabaseAs: a, log: logs.d.log });
  });

  afterAll(async () => {
    // Instances on a's database first: a's stop drops it.
    for (const app of [b, c, d]) await app?.stop();
    await a?.stop();
    await redis?.kill();
  });

  async function freshToken(app: TestApp, name: string): Promise<string> {
    const created = await makeApp(app);
    const user = await makeUser(app, name);
    return issueToken(app, { userId: user.id, clientId: created.client_id, scope: 'profile:read' });
  }

  it('two instances on one Redis share one budget: 301 reads across both get exactly one 429', async () => {
    const token = await freshToken(a, 'shared-reader');
    const reads = await many(301, 8, (i) => call(i % 2 ? b : a, '/api/platform/v1/me', { token }));
    expect(reads.filter((r) => r.status === 200)).toHaveLength(300);
    const refused = reads.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    expect429(refused[0]!, 300);
    // Both instances see the bucket full now.
    expect429(await call(a, '/api/platform/v1/me', { token }), 300);
    expect429(await call(b, '/api/platform/v1/me', { token }), 300);
  });

  it('serves and limits from memory when Redis is down from the start, and says so in its log only', async () => {
    const printed = vi.spyOn(console, 'error');
    const { log, lines } = memoryLog();
    // Nothing listens on a port just found free.
    let e: TestApp | undefined;
    try {
      e = await startTestApp({ RATE_LIMITS: 'on', REDIS_URL: `redis://127.0.0.1:${await freePort()}` }, { sameDatabaseAs: a, log });
      const res = await call(e, '/api/public/v1/catalog/trending');
      expect(res.status).toBe(200);
      expectHeaders(res, 60, 59);
      await until('failed reconnects', () => e!.limits.counters.redisErrors >= 3);
      expect(e.limits.counters.memoryDecisions).toBe(1);
      expect(logged(lines, 'redis unavailable')).toBe(1);
      // Every connection error went to the limiter, none to ioredis's own print of an unheard error.
      expect(printed.mock.calls.filter((args) => String(args[0]).includes('ioredis'))).toEqual([]);
    } finally {
      printed.mockRestore();
      await e?.stop();
    }
  });

  // One story, told in order: each test starts where the one before left Redis and the counters.
  describe('when Redis goes away and comes back', () => {
    let token: string;
    let clientId: string;
    const before = { c: { redisErrors: 0, memoryDecisions: 0 }, d: { redisErrors: 0, memoryDecisions: 0 } };
    const deviceCode = (app: TestApp) => call(app, '/api/platform/v1/auth/device/code', { method: 'POST', body: { client_id: clientId } });

    it('shares the budget while Redis is up', async () => {
      const created = await makeApp(c);
      clientId = created.client_id;
      const user = await makeUser(c, 'outage-reader');
      token = await issueToken(c, { userId: user.id, clientId, scope: 'profile:read' });
      // d's Remaining counts c's requests and the other way round.
      expectHeaders(await call(c, '/api/platform/v1/me', { token }), 300, 299);
      expectHeaders(await call(d, '/api/platform/v1/me', { token }), 300, 298);
      expectHeaders(await call(c, '/api/platform/v1/me', { token }), 300, 297);
      expect(c.limits.counters).toEqual({ redisErrors: 0, memoryDecisions: 0 });
      expect(d.limits.counters).toEqual({ redisErrors: 0, memoryDecisions: 0 });
    });

    it('keeps serving and limiting from memory per instance when Redis dies, and logs it once per instance', async () => {
      before.c = { ...c.limits.counters };
      before.d = { ...d.limits.counters };
      // Killed while requests are in flight on both instances: those in flight must not fail either.
      const inFlight = many(60, 8, (i) => call(i % 2 ? d : c, '/api/platform/v1/me', { token }));
      await new Promise((r) => setTimeout(r, 20));
      await redis.kill();
      const during = await inFlight;
      expect(during.map((r) => r.status)).toEqual(Array(60).fill(200));

      // Served, with honest headers from memory: each instance counts on its own now.
      const onC = await call(c, '/api/platform/v1/me', { token });
      const onD = await call(d, '/api/platform/v1/me', { token });
      expect([onC.status, onD.status]).toEqual([200, 200]);
      expectHeaders(onC, 300);
      expectHeaders(onD, 300);

      // Still limited: 10 device codes an hour per address, the 11th refused, from c's memory alone.
      const codes = await many(11, 1, () => deviceCode(c));
      expect(codes.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
      expectHeaders(codes[9]!, 10, 0);
      expect429(codes[10]!, 10);
      // d has a memory of its own, which has not seen c's codes.
      expectHeaders(await deviceCode(d), 10, 9);

      // Several reconnect attempts fail meanwhile (each one a Redis error), yet each instance logs once.
      await until('three failed reconnects on each instance', () => c.limits.counters.redisErrors - before.c.redisErrors >= 3 && d.limits.counters.redisErrors - before.d.redisErrors >= 3);
      expect(c.limits.counters.memoryDecisions - before.c.memoryDecisions).toBeGreaterThanOrEqual(12);
      expect(d.limits.counters.memoryDecisions - before.d.memoryDecisions).toBeGreaterThanOrEqual(2);
      await many(20, 4, (i) => call(i % 2 ? d : c, '/api/platform/v1/me', { token }));
      expect(logged(logs.c.lines, 'redis unavailable')).toBe(1);
      expect(logged(logs.d.lines, 'redis unavailable')).toBe(1);
      expect(logged(logs.c.lines, 'redis is back')).toBe(0);
    });

    it('shares the budget again once Redis is back', async () => {
      await redis.start();
      // Reconnected when a request on d sees the one just made on c, for a key neither instance has in
      // memory: 298 left only if both counted in Redis (either one in memory answers 299).
      let n = 0;
      await until('both instances back on Redis', async () => {
        const probe = await freshToken(c, `probe${n++}`);
        expect((await call(c, '/api/platform/v1/me', { token: probe })).status).toBe(200);
        return remaining(await call(d, '/api/platform/v1/me', { token: probe })) === 298;
      }, 30_000, PROBE_EVERY_MS);
      expect(logged(logs.c.lines, 'redis is back')).toBe(1);
      expect(logged(logs.d.lines, 'redis is back')).toBe(1);
      expect(logged(logs.c.lines, 'redis unavailable')).toBe(1);

      // The restarted Redis has no counters: the address gets 10 device codes again, shared by both
      // instances (c alone had used up its memory's 10), and the 11th is refused wherever it lands.
      const codes = await many(10, 1, (i) => deviceCode(i % 2 ? d : c));
      expect(codes.map((r) => r.status)).toEqual(Array(10).fill(200));
      expectHeaders(codes[9]!, 10, 0);
      expect429(await deviceCode(c), 10);
      expect429(await deviceCode(d), 10);
    });

    it('answers while Redis hangs, limiting from memory, and shares again when it answers', async () => {
      const errorsBefore = { c: c.limits.counters.redisErrors, d: d.limits.counters.redisErrors };
      const reader = await freshToken(d, 'hang-reader');
      redis.pause();
      try {
        // A hung Redis keeps the connection open: only timeouts can tell. Until they do, each request
        // waits at most one command timeout; the silent connection is then dropped and seen as an outage.
        // Every answer below arrives while Redis is still paused (it resumes only in the finally), so a
        // request that waited on Redis would never answer and the test would time out: no clock needed.
        await until('both instances to see the hung Redis', async () => {
          const both = await Promise.all([call(c, '/api/platform/v1/me', { token }), call(d, '/api/platform/v1/me', { token })]);
          for (const answer of both) expect(answer.status).toBe(200);
          return c.limits.counters.redisErrors > errorsBefore.c && d.limits.counters.redisErrors > errorsBefore.d;
        }, 30_000, PROBE_EVERY_MS);
        // Limited from memory: 300 reads on d pass, the 301st is refused.
        const reads = await many(301, 8, () => call(d, '/api/platform/v1/me', { token: reader }));
        expect(reads.filter((r) => r.status === 200)).toHaveLength(300);
        expect429(reads.find((r) => r.status === 429)!, 300);
        expect(logged(logs.c.lines, 'redis unavailable')).toBe(2);
        expect(logged(logs.d.lines, 'redis unavailable')).toBe(2);
      } finally {
        redis.resume();
      }
      let n = 0;
      await until('both instances back on Redis', async () => {
        const probe = await freshToken(c, `hang-probe${n++}`);
        expect((await call(c, '/api/platform/v1/me', { token: probe })).status).toBe(200);
        return remaining(await call(d, '/api/platform/v1/me', { token: probe })) === 298;
      }, 30_000, PROBE_EVERY_MS);
      expect(logged(logs.c.lines, 'redis is back')).toBe(2);
      expect(logged(logs.d.lines, 'redis is back')).toBe(2);
    });

    it('counts a dropped connection as one outage, logged even without an error, and keeps the new connection', async () => {
      const mark = { c: logs.c.lines.length, d: logs.d.lines.length };
      const since = (which: 'c' | 'd', text: string) => logged(logs[which].lines.slice(mark[which]), text);
      let n = 0;
      const shared = async () => {
        const probe = await freshToken(c, `drop-probe${n++}`);
        expect((await call(c, '/api/platform/v1/me', { token: probe })).status).toBe(200);
        return remaining(await call(d, '/api/platform/v1/me', { token: probe })) === 298;
      };
      // Redis closes both instances' connections (as on a restart, a proxy's or a server timeout): no
      // error is raised when the first reconnect succeeds, yet it is an outage all the same.
      const admin = new Redis(redis.url, { lazyConnect: true });
      await admin.connect();
      try {
        const errorsBefore = { c: c.limits.counters.redisErrors, d: d.limits.counters.redisErrors };
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        await until('both instances back on Redis', shared, 30_000, PROBE_EVERY_MS);
        expect([c.limits.counters.redisErrors, d.limits.counters.redisErrors]).toEqual([errorsBefore.c, errorsBefore.d]);
        for (const which of ['c', 'd'] as const) {
          expect(since(which, 'redis unavailable')).toBe(1);
          expect(since(which, 'redis is back')).toBe(1);
        }

        // Dropped again with requests in flight: ioredis before 6 kept the socketTimeout timer of the old
        // connection, which a second later dropped the new one too (redis/ioredis#2147, fixed in 6.0.0);
        // this pins that it stays fixed. Still shared after it, still one more outage per instance.
        const reader = await freshToken(c, 'drop-reader');
        const inFlight = many(80, 8, (i) => call(i % 2 ? d : c, '/api/platform/v1/me', { token: reader }));
        await new Promise((r) => setTimeout(r, 20));
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        expect((await inFlight).map((r) => r.status)).toEqual(Array(80).fill(200));
        await until('both instances back on Redis', shared, 30_000, PROBE_EVERY_MS);
        await new Promise((r) => setTimeout(r, 1_500));
        expect(await shared()).toBe(true);
        for (const which of ['c', 'd'] as const) {
          expect(since(which, 'redis unavailable')).toBe(2);
          expect(since(which, 'redis is back')).toBe(2);
        }
      } finally {
        admin.disconnect();
      }
    });

    it('failed no request while Redis was away', () => {
      expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    });
  });
});
