// Every bucket of the limits table, at its real count: the request at the limit is not refused and the
// next one is 429 `rate_limited` naming that limit. Each bucket gets an address (X-Forwarded-For through
// a trusted proxy) or a user of its own, so buckets are measured one at a time. Endpoints not built
// yet are limited by path already (their answers are 404 until then; the bucket counts them all the same).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, type Limit } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { issueToken } from './helpers/tokens.ts';

let app: TestApp;
let clientId: string;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
  clientId = (await makeApp(app)).client_id;
});
afterAll(() => app?.stop());

let nextAddress = 1;
const freshAddress = () => `198.18.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;
let nextUser = 1;
async function freshToken(scope = 'profile:read'): Promise<string> {
  const user = await makeUser(app, `bucket${nextUser++}`);
  return issueToken(app, { userId: user.id, clientId, scope });
}

type Send = { method: string; path: string; body?: unknown; auth?: boolean };

/** A request that falls in the bucket (and in as few others as possible). */
const REQUESTS: Record<string, Send> = {
  unauthenticated: { method: 'GET', path: '/api/platform/v1/me' },
  'device-token': { method: 'POST', path: '/api/platform/v1/auth/device/token', body: { client_id: 'app_unknown', device_code: 'x' } },
  refresh: { method: 'POST', path: '/api/platform/v1/auth/refresh', body: { client_id: 'app_unknown', refresh_token: 'x' } },
  // A code exchange: refreshes and device polls sent to /oauth/token also fill their own stricter buckets.
  'token-client': { method: 'POST', path: '/api/platform/v1/oauth/token', body: { grant_type: 'authorization_code', client_id: 'app_unknown', code: 'x' } },
  revoke: { method: 'POST', path: '/api/platform/v1/oauth/revoke', body: { token: 'x', client_id: 'app_unknown' } },
  calendar: { method: 'GET', path: '/api/platform/v1/calendar', auth: true },
  history: { method: 'GET', path: '/api/platform/v1/me/history', auth: true },
  'up-next': { method: 'GET', path: '/api/platform/v1/me/up-next', auth: true },
  // Counted before the ownership check: a token whose user does not own its app (403 app_owner_only) counts too.
  webhooks: { method: 'GET', path: '/api/platform/v1/apps/me/webhooks', auth: true },
  'webhook-test': { method: 'POST', path: '/api/platform/v1/apps/me/webhooks/1/test', auth: true, body: {} },
  'year-in-review': { method: 'GET', path: '/api/platform/v1/me/year-in-review', auth: true },
  lists: { method: 'GET', path: '/api/platform/v1/me/lists', auth: true },
  'events-token': { method: 'GET', path: '/api/platform/v1/playback/events', auth: true },
  'sync-changes': { method: 'GET', path: '/api/platform/v1/me/sync/changes', auth: true },
  'sync-snapshot': { method: 'GET', path: '/api/platform/v1/me/sync/snapshot', auth: true },
  'sync-write': { method: 'POST', path: '/api/platform/v1/sync/history', auth: true },
  'public-user': { method: 'GET', path: '/api/public/v1/users/somebody' },
  'public-trending': { method: 'GET', path: '/api/public/v1/catalog/trending' },
  'public-discover': { method: 'GET', path: '/api/public/v1/catalog/discover' },
  'public-overview': { method: 'GET', path: '/api/public/v1/community/overview' },
};

// Measured elsewhere: token-reads, token-writes, app, device-code, public-search (rate-limits.test.ts),
// consent-approvals (rate-limits-consent.test.ts); token-admission below with token-client.
// sign-in-*: failures, not requests, on the HTML sign-in forms (sign-in-throttle.test.ts); sign-up-ip:
// sign-ups on the HTML sign-up form (sign-up.test.ts); import-upload: uploads on /account/import (import-page.test.ts);
// export and export-page: the full export over the API (export.test.ts) and from the account page
// (account-export.test.ts), which need official apps and sessions; calendar-feed and calendar-feed-create:
// a feed's token and an official app's (calendar-feed-limits.test.ts); media-server-receivers and
// media-server-hook: the receivers' procedures and each receiver's URLs (media-server-hooks-api.test.ts);
// webhook-forms and webhook-page-test: the webhook forms of an app's page (app-webhooks-access.test.ts).
const COVERED_ELSEWHERE = new Set(['token-reads', 'token-writes', 'app', 'device-code', 'public-search', 'consent-approvals', 'token-admission', 'events-user', 'playback', 'sign-in-account', 'sign-in-ip', 'sign-in-success', 'sign-up-ip', 'import-upload', 'export', 'export-page', 'app-secret', 'app-create', 'app-edit', 'account-forms', 'calendar-feed', 'calendar-feed-create', 'media-server-receivers', 'media-server-hook', 'webhook-forms', 'webhook-page-test']);

async function send(s: Send, address: string, token: string | undefined) {
  const headers: Record<string, string> = { 'x-forwarded-for': address };
  if (token) headers.authorization = `Bearer ${token}`;
  if (s.body) headers['content-type'] = 'application/json';
  const res = await fetch(`${app.url}${s.path}`, { method: s.method, headers, body: s.body ? JSON.stringify(s.body) : undefined });
  // An accepted event stream stays open: its attempt has counted, close it instead of reading it.
  const stream = res.headers.get('content-type')?.startsWith('text/event-stream');
  if (stream) await res.body?.cancel();
  return { status: res.status, limit: res.headers.get('x-ratelimit-limit'), retryAfter: res.headers.get('retry-after'), body: stream ? '' : await res.text() };
}

async function exhaust(limit: Limit, s: Send, token?: string) {
  const address = freshAddress();
  let last: Awaited<ReturnType<typeof send>> | undefined;
  for (let i = 0; i < limit.points; i++) {
    last = await send(s, address, token);
    expect(last.status, `request ${i + 1} of ${limit.points}`).not.toBe(429);
  }
  const over = await send(s, address, token);
  expect(over.status).toBe(429);
  expect(over.limit).toBe(String(limit.points));
  expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
  if (limit.surface === 'platform') expect(JSON.parse(over.body)).toMatchObject({ error: 'rate_limited' });
  else expect(Object.keys(JSON.parse(over.body))).toContain('message');
}

describe('every bucket at its limit', () => {
  it('covers the whole table', () => {
    for (const l of LIMITS) expect(COVERED_ELSEWHERE.has(l.id) || l.id in REQUESTS, l.id).toBe(true);
  });

  it.each(LIMITS.filter((l) => l.id in REQUESTS).map((l) => [l.id, l] as const))('%s', async (_id, limit) => {
    const s = REQUESTS[limit.id]!;
    // A user of its own per bucket: the general per-token buckets stay out of the way.
    await exhaust(limit, s, s.auth ? await freshToken() : undefined);
  });

  it('token-admission: 180 token requests a minute per address, whatever the client', async () => {
    const address = freshAddress();
    const answers = [];
    // Two clients of 90 each: no per-client bucket fills, the address's does.
    for (let i = 0; i < 181; i++) {
      answers.push(await send({ method: 'POST', path: '/api/platform/v1/oauth/token', body: { grant_type: 'authorization_code', client_id: `app_x${i % 2}`, code: 'x' } }, address, undefined));
    }
    expect(answers.slice(0, 180).every((a) => a.status !== 429)).toBe(true);
    expect(answers[180]).toMatchObject({ status: 429, limit: '180' });
  });

  it('playback: 120 events per 5 minutes per user, across apps', async () => {
    const user = await makeUser(app, `bucket${nextUser++}`);
    // Two apps of 60 writes each: neither token's own write bucket (120 a minute) fills, the user's does.
    const other = (await makeApp(app)).client_id;
    const tokens = await Promise.all([clientId, other].map((c) => issueToken(app, { userId: user.id, clientId: c, scope: 'playback:write' })));
    const address = freshAddress();
    const event = { method: 'POST', path: '/api/platform/v1/playback/start', auth: true };
    for (let i = 0; i < 120; i++) expect((await send(event, address, tokens[i % 2])).status).not.toBe(429);
    expect(await send(event, address, tokens[0])).toMatchObject({ status: 429, limit: '120' });
  });

  it('events-user: 60 connection attempts a minute per user, over several tokens', async () => {
    const user = await makeUser(app, `bucket${nextUser++}`);
    // Three tokens of 20: each at its per-token limit, the user at 60.
    const tokens = await Promise.all([0, 1, 2].map(() => issueToken(app, { userId: user.id, clientId, scope: 'events:read' })));
    const address = freshAddress();
    for (let i = 0; i < 60; i++) expect((await send(REQUESTS['events-token']!, address, tokens[Math.floor(i / 20)])).status).not.toBe(429);
    const fourth = await issueToken(app, { userId: user.id, clientId, scope: 'events:read' });
    expect(await send(REQUESTS['events-token']!, address, fourth)).toMatchObject({ status: 429, limit: '60' });
  });
});
