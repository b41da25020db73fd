// No way around the stricter buckets through the general token endpoint: a refresh sent as
// POST /oauth/token (grant_type=refresh_token) counts against the /auth/refresh bucket (20 an hour per
// address), and a device-code poll sent there against the /auth/device/token bucket (200 per 10 minutes
// per address), in both directions. Real counts over real HTTP; each case has an address of its own
// (X-Forwarded-For through a trusted proxy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp } from './helpers/oauth.ts';

let app: TestApp;
let clientId: string;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
  clientId = (await makeApp(app)).client_id;
});
afterAll(() => app?.stop());

let nextAddress = 1;
const freshAddress = () => `198.19.0.${nextAddress++}`;

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function post(address: string, p: string, body: Record<string, string>) {
  const res = await fetch(`${app.url}/api/platform/v1${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });
  return { status: res.status, limit: res.headers.get('x-ratelimit-limit'), retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

// Unknown tokens and codes: the request is refused on its merits (400), but it has counted.
const refreshViaToken = (a: string) => post(a, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: 'no-such-token' });
const refreshViaShim = (a: string) => post(a, '/auth/refresh', { client_id: clientId, refresh_token: 'no-such-token' });
const pollViaToken = (a: string) => post(a, '/oauth/token', { grant_type: DEVICE_GRANT, client_id: clientId, device_code: 'no-such-code' });
const pollViaShim = (a: string) => post(a, '/auth/device/token', { client_id: clientId, device_code: 'no-such-code' });

async function spend(n: number, send: () => Promise<{ status: number }>) {
  for (let i = 0; i < n; i++) expect((await send()).status, `request ${i + 1} of ${n}`).toBe(400);
}

function expectRefused(a: Awaited<ReturnType<typeof post>>, limit: number) {
  expect(a.status).toBe(429);
  expect(a.body).toMatchObject({ error: 'rate_limited', request_id: expect.stringMatching(/^req_/) });
  expect(a.limit).toBe(String(limit));
  expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
}

describe('refreshes through /oauth/token', () => {
  it('answer the 21st refresh of an hour from one address with 429 and Retry-After', async () => {
    const address = freshAddress();
    await spend(20, () => refreshViaToken(address));
    expectRefused(await refreshViaToken(address), 20);
  });

  it('fill the /auth/refresh bucket, and /auth/refresh refreshes fill theirs', async () => {
    const address = freshAddress();
    await spend(20, () => refreshViaToken(address));
    expectRefused(await refreshViaShim(address), 20);

    const other = freshAddress();
    await spend(20, () => refreshViaShim(other));
    expectRefused(await refreshViaToken(other), 20);
  });
});

describe('device polls through /oauth/token', () => {
  it('count against the /auth/device/token bucket of 200 per 10 minutes, both ways', async () => {
    const address = freshAddress();
    await spend(199, () => pollViaShim(address));
    await spend(1, () => pollViaToken(address));
    expectRefused(await pollViaShim(address), 200);
    expectRefused(await pollViaToken(address), 200);
  });
});
