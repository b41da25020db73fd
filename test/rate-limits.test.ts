// Rate limits with real counts over real HTTP: each bucket passes the request at its limit and answers
// the next with 429 `rate_limited`, Retry-After and the headers; a rejected request spends nothing from
// the other buckets; headers on every platform and public response; X-Forwarded-For only from trusted
// proxies. The request counts are the real ones of core/limits/table.ts, not scaled down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketsOf, generalBuckets, limitById, type Bucket } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import * as http from './helpers/http.ts';
import { jsonOfSize, rawRequest, type Answer, type CallOptions } from './helpers/http.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { issueToken } from './helpers/tokens.ts';
import { expectHeaders, many } from './helpers/limits.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
});
afterAll(() => app?.stop());

const call = (path: string, init: CallOptions = {}) => http.call(app, path, init);

function expect429(a: Answer, limit: number, surface: 'platform' | 'public' = 'platform') {
  expect(a.status).toBe(429);
  if (surface === 'platform') expect(a.body).toMatchObject({ error: 'rate_limited', message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
  else expect(a.body.message).toEqual(expect.any(String));
  expectHeaders(a, limit, 0);
  expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

async function userToken(name: string, clientId: string, scope = 'profile:read') {
  const user = await makeUser(app, name);
  return issueToken(app, { userId: user.id, clientId, scope });
}

describe('the limits table', () => {
  it('picks the general buckets of a request and the buckets a procedure or route names', () => {
    const actor = { userId: 'u', clientId: 'c' };
    const ids = (buckets: Bucket[]) => buckets.map((b) => `${b.limit.id}=${b.key}${b.cost ? `x${b.cost}` : ''}`).sort();
    expect(ids(generalBuckets({ read: true, calls: 1, ip: '1.2.3.4', actor }))).toEqual(['app=c', 'token-reads=c:u']);
    expect(ids(generalBuckets({ read: false, calls: 3, ip: '1.2.3.4', actor }))).toEqual(['app=cx3', 'token-writes=c:ux3']);
    expect(ids(generalBuckets({ read: false, calls: 1, ip: '1.2.3.4' }))).toEqual(['unauthenticated=1.2.3.4']);
    expect(ids(bucketsOf(['sync-write'], { ip: '1.2.3.4', actor, operation: 'sync.history' }))).toEqual(['sync-write=sync.history:c:u']);
    expect(ids(bucketsOf(['events-token', 'events-user'], { ip: 'x', actor, tokenId: 't' }))).toEqual(['events-token=t', 'events-user=u']);
    expect(ids(bucketsOf(['public-discover'], { ip: '1.2.3.4' }))).toEqual(['public-discover=1.2.3.4']);
    // A per-user bucket of a request without a user is not counted (that request is refused anyway).
    expect(ids(bucketsOf(['history'], { ip: '1.2.3.4' }))).toEqual([]);
  });
});

describe('headers', () => {
  it('are on every platform response, errors included, and on public responses', async () => {
    const created = await makeApp(app);
    const token = await userToken('hank', created.client_id);
    expectHeaders(await call('/api/platform/v1/me', { token }), 300, 299);
    expectHeaders(await call('/api/platform/v1/no-such-route', { token }), 300, 298);
    const unauthorized = await call('/api/platform/v1/me');
    expect(unauthorized.status).toBe(401);
    expectHeaders(unauthorized, 300);
    const tooLarge = await rawRequest(app.url, {
      method: 'POST',
      path: '/api/platform/v1/lists',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': 65_537 },
      body: jsonOfSize(65_537),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers['x-ratelimit-limit']).toBe('120');
    expectHeaders(await call('/api/public/v1/catalog/trending'), 60, 59);
  });
});

describe('per token', () => {
  it('allows 300 reads a minute and answers the 301st with 429; writes have their own 120', async () => {
    const created = await makeApp(app);
    const token = await userToken('ivan', created.client_id);
    const reads = await many(301, 16, () => call('/api/platform/v1/me', { token }));
    // 16 at a time, the refused one may be any of the last few sent: count, don't rely on order.
    expect(reads.filter((a) => a.status === 200)).toHaveLength(300);
    expect(reads.filter((a) => a.status === 429)).toHaveLength(1);
    expect429(reads.find((a) => a.status === 429)!, 300);
    expect429(await call('/api/platform/v1/me', { token }), 300);

    // A write to no route still counts as a write (and answers 404 without touching any data).
    const writes = await many(121, 16, () => call('/api/platform/v1/no-such-route', { method: 'POST', token }));
    expect(writes.filter((a) => a.status === 404)).toHaveLength(120);
    expect429(writes.find((a) => a.status === 429)!, 120);
  });
});

describe('per app', () => {
  it('allows 6,000 requests a minute across all its users and answers the 6,001st with 429', async () => {
    const created = await makeApp(app);
    const tokens = await Promise.all(Array.from({ length: 21 }, (_, i) => userToken(`crowd${i}`, created.client_id)));
    // The first 5,980 are counted in the app's bucket directly, in this process: 6,000 over HTTP on a
    // loaded 2-core machine can take longer than the bucket's one-minute window, which then starts over.
    const bucket = { limit: limitById('app'), key: created.client_id };
    for (let i = 0; i < 5980; i++) expect((await app.limits.check([bucket]))?.allowed).toBe(true);
    // The last 20 over HTTP, one per user (each far from its own limit): the app's bucket is full after them.
    const answers = await many(20, 4, (i) => call('/api/platform/v1/no-such-route', { token: tokens[i]! }));
    expect(answers.every((a) => a.status === 404)).toBe(true);
    const last = await call('/api/platform/v1/no-such-route', { token: tokens[20]! });
    expect429(last, 6000);
    // Another app is untouched.
    const other = await makeApp(app);
    expect((await call('/api/platform/v1/me', { token: await userToken('outsider', other.client_id) })).status).toBe(200);
  });
});

describe('per address', () => {
  it('allows 10 device codes an hour; the 11th is refused and spends nothing from the other buckets', async () => {
    const created = await makeApp(app);
    const xff = { 'x-forwarded-for': '203.0.113.9' }; // not believed: TRUST_PROXY is unset
    const before = await call('/api/platform/v1/me', { headers: xff });
    const left = Number(before.headers.get('x-ratelimit-remaining'));
    const codes = await many(11, 1, () => call('/api/platform/v1/auth/device/code', { method: 'POST', body: JSON.stringify({ client_id: created.client_id }), headers: xff }));
    expect(codes.slice(0, 10).every((a) => a.status === 200)).toBe(true);
    expectHeaders(codes[9]!, 10, 0);
    expect429(codes[10]!, 10);
    // The refused request gave back what it took from the address's general bucket.
    const after = await call('/api/platform/v1/me');
    expect(after.headers.get('x-ratelimit-remaining')).toBe(String(left - 11));
  });

  it('allows 60 public searches a minute per address', async () => {
    const answers = await many(61, 8, () => call('/api/public/v1/catalog/search?q=alien'));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    expect429(answers.find((a) => a.status === 429)!, 60, 'public');
  });
});

describe('behind a trusted proxy', () => {
  it('counts per X-Forwarded-For address only when the proxy is trusted', async () => {
    const proxied = await startTestApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
    try {
      const created = await makeApp(proxied);
      const ask = (ip: string) =>
        fetch(`${proxied.url}/api/platform/v1/auth/device/code`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
          body: JSON.stringify({ client_id: created.client_id }),
        });
      for (let i = 0; i < 10; i++) expect((await ask('198.51.100.1')).status).toBe(200);
      expect((await ask('198.51.100.1')).status).toBe(429);
      expect((await ask('198.51.100.2')).status).toBe(200);
    } finally {
      await proxied.stop();
    }
  });
});

describe('consent approvals', () => {
  it('refuses the 31st approval of a minute by one user', async () => {
    const user = await makeUser(app, 'judy');
    const approvals = Array.from({ length: 30 }, () => app.limits.check([{ limit: limitById('consent-approvals'), key: user.id }]));
    expect((await Promise.all(approvals)).every((d) => d?.allowed)).toBe(true);
    const refused = await app.limits.check([{ limit: limitById('consent-approvals'), key: user.id }]);
    expect(refused).toMatchObject({ allowed: false, limit: 30, remaining: 0 });
  });
});
