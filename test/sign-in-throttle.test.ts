// Password guessing is throttled on every form that takes a password: after 10 failures for one account
// within 15 minutes the next attempt is refused with 429 without checking the password (the right
// password included), and the page says when to try again; a success resets the account's count; one
// address is held to 50 failures whatever the accounts. The buckets are `sign-in-account` and
// `sign-in-ip` of the limits table (Redis in services mode), always on, even with RATE_LIMITS=off.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient } from './helpers/code-flow.ts';
import { makeUser, PASSWORD, postAccountSignIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  // X-Forwarded-For from loopback names the client address, so a test can play several addresses.
  app = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  for (const name of ['throttled', 'resets', 'onip', 'browser_user', 'looped', 'neighbour']) await makeUser(app, name);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

type Answer = { status: number; text: string; headers: Headers };

async function accountSignIn(username: string, password: string, ip = '127.0.0.1'): Promise<Answer> {
  const res = await postAccountSignIn(app, username, password, { 'x-forwarded-for': ip });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('/account sign-in', () => {
  it('the 11th attempt after 10 failures is 429 even with the right password, and says when to retry', async () => {
    expect(limitById('sign-in-account')).toMatchObject({ points: 10, seconds: 15 * 60 });
    for (let i = 0; i < 10; i++) {
      const wrong = await accountSignIn('throttled', `wrong-${i}`);
      expect(wrong.status).toBe(400);
      expect(wrong.text).toContain('Wrong username or password.');
    }
    const refused = await accountSignIn('Throttled', PASSWORD); // any case: one account
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/Too many failed sign-ins\. Try again in 1[45] minutes\./);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(14 * 60);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(refused.headers.get('set-cookie') ?? '').not.toContain('_session=');
  });

  it('a success resets the account count: 9 failures, a success, then 10 more failures before a refusal', async () => {
    for (let i = 0; i < 9; i++) expect((await accountSignIn('resets', 'nope')).status).toBe(400);
    const ok = await accountSignIn('resets', PASSWORD);
    expect(ok.status).toBe(303);
    for (let i = 0; i < 10; i++) expect((await accountSignIn('resets', 'nope')).status).toBe(400);
    expect((await accountSignIn('resets', PASSWORD)).status).toBe(429);
  });

  it('one address is held to 50 failures across accounts; other addresses are not', async () => {
    // Unknown usernames count like known ones (no hint which exist); 10 accounts of 5 failures each.
    for (let i = 0; i < 50; i++) expect((await accountSignIn(`nobody${i % 10}`, 'guess', '203.0.113.7')).status).toBe(400);
    const refused = await accountSignIn('onip', PASSWORD, '203.0.113.7');
    expect(refused.status).toBe(429);
    expect((await accountSignIn('onip', PASSWORD, '203.0.113.8')).status).toBe(303);
  });
});

describe('a loop of the right password', () => {
  it('is held too: 60 sign-ins to one account in 15 minutes, then 429 before the password is checked; other accounts sign in', async () => {
    expect(limitById('sign-in-success')).toMatchObject({ points: 60, seconds: 15 * 60, key: 'account' });
    for (let i = 0; i < 60; i++) expect((await accountSignIn('looped', PASSWORD)).status).toBe(303);
    const refused = await accountSignIn('LOOPED', PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/Too many sign-ins to this account\. Try again in 1[45] minutes\./);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('set-cookie') ?? '').not.toContain('_session=');
    // Per account: the same address signs another user in.
    expect((await accountSignIn('neighbour', PASSWORD)).status).toBe(303);
  });
});

describe('the sign-in page of an authorization', () => {
  it('is throttled the same way: 10 failures, then 429 with the right password', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto((await authorizationUrl(c)).url.toString());
      const attempt = async (password: string) => {
        await page.getByLabel('Username').fill('browser_user');
        await page.getByLabel('Password').fill(password);
        const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/login')), page.getByRole('button', { name: 'Sign in' }).click()]);
        await page.waitForLoadState();
        return response.status();
      };
      for (let i = 0; i < 10; i++) expect(await attempt(`bad-${i}`)).toBe(400);
      expect(await attempt(PASSWORD)).toBe(429);
      await expect(page.getByText(/Too many failed sign-ins\. Try again in 1[45] minutes\./).isVisible()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });
});
