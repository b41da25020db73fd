// The calendar feed's rate limits, with the real limits on: 60 fetches an hour per feed token (304s
// included), the 61st 429 with Retry-After, honest X-RateLimit-* headers on every answer (the 404s of
// wrong tokens too, which count against the address, not against a feed); 20 URL rotations an hour per
// user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { feedUrl, fetchFeed } from './helpers/calendar-feed.ts';
import { expectError } from './helpers/envelope.ts';
import type { Answer } from './helpers/http.ts';
import { expectHeaders } from './helpers/limits.ts';
import { member, platform } from './helpers/seed.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
});
afterAll(() => app?.stop());

const SCOPES = ['profile:read', 'profile:write'];
const asAnswer = (r: { status: number; headers: Headers; text: string }): Answer => ({ status: r.status, headers: r.headers, body: r.status >= 400 ? (JSON.parse(r.text) as Record<string, unknown>) : {} });

describe('calendar-feed: 60 fetches an hour per feed token', () => {
  it('answers 60 (304s count too) with the bucket in the headers, then 429 with Retry-After; a wrong token spends nothing of it', async () => {
    const m = await member(app, 'poller', SCOPES, { official: true });
    const url = await feedUrl(app, m.token);
    // Wrong tokens: 404 with the address's headers, nothing taken from the feed's bucket.
    for (let i = 0; i < 5; i++) {
      const wrong = asAnswer(await fetchFeed(`${url}x`));
      expectError(wrong, 404, 'not_found');
      expectHeaders(wrong, 300);
    }
    const first = asAnswer(await fetchFeed(url));
    expect(first.status).toBe(200);
    expectHeaders(first, 60, 59);
    const etag = first.headers.get('etag')!;
    for (let i = 2; i <= 60; i++) {
      const res = asAnswer(await fetchFeed(url, i % 2 ? {} : { 'if-none-match': etag }));
      expect(res.status, `fetch ${i}`).toBe(i % 2 ? 200 : 304);
      expectHeaders(res, 60, 60 - i);
    }
    const over = asAnswer(await fetchFeed(url, { 'if-none-match': etag }));
    expectError(over, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expectHeaders(over, 60, 0);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.body.retry_after).toBe(Number(over.headers.get('retry-after')));

    // Another user's feed has its own bucket; so has a rotated URL (rotations have theirs, below).
    const other = await member(app, 'neighbour', SCOPES, { official: true });
    expect((await fetchFeed(await feedUrl(app, other.token))).status).toBe(200);
    const rotated = asAnswer(await fetchFeed(await feedUrl(app, m.token)));
    expect(rotated.status).toBe(200);
    expectHeaders(rotated, 60, 59);
  });
});

describe('calendar-feed-create: 20 URLs an hour per user', () => {
  it('makes 20, then 429 naming the limit', async () => {
    const m = await member(app, 'rotator', SCOPES, { official: true });
    for (let i = 1; i <= 20; i++) {
      const res = await platform(app, m.token, 'POST', '/me/calendar-feed');
      expect(res.status, `rotation ${i}`).toBe(200);
      expectHeaders(res, 20, 20 - i);
    }
    const over = await platform(app, m.token, 'POST', '/me/calendar-feed');
    expectError(over, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(over.headers.get('x-ratelimit-limit')).toBe('20');
    // Reading and deleting are not rotations.
    expect((await platform(app, m.token, 'GET', '/me/calendar-feed')).status).toBe(200);
  });
});
