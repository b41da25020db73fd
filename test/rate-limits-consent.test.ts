// Consent approvals are limited per user (POST /oauth/authorize, 30 approvals a minute per
// user: the `consent-approvals` bucket), and the limit is met where the user meets it: clicking Allow in the browser. The 30th approval
// still sends a code to the app; the 31st answers 429 with a page saying when to try again and
// Retry-After, and no code reaches the redirect URI. Runs in both modes (one instance).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { makeUser, signIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/**
 * Opens a new app's authorization URL and brings the consent page up (signing in when the context has
 * no session yet). `reached` collects every URL the redirect URI is sent, answered by the browser itself.
 */
async function consentPageOfNewApp(context: BrowserContext, username: string, reached: string[]): Promise<Page> {
  const c = await newCodeClient(app);
  const { url } = await authorizationUrl(c);
  const page = await context.newPage();
  await page.route(`${REDIRECT}**`, async (route) => {
    reached.push(route.request().url());
    await route.fulfill({ status: 200, body: 'done' });
  });
  await page.goto(url.toString());
  const allow = page.getByRole('button', { name: 'Allow' });
  await page.getByRole('button', { name: 'Sign in' }).or(allow).waitFor();
  if (await page.getByRole('button', { name: 'Sign in' }).isVisible()) await signIn(page, username);
  await allow.waitFor();
  return page;
}

/** Clicks Allow and returns the answer to the consent form's POST /oauth/authorize. */
async function clickAllow(page: Page) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/oauth/authorize')),
    page.getByRole('button', { name: 'Allow' }).click(),
  ]);
  return response;
}

describe('consent approvals in the browser', () => {
  it('lets the 30th approval of a minute through and answers the 31st with a 429 page, sending no code', async () => {
    const user = await makeUser(app, 'quinn');
    // 29 approvals spent the way the consent form spends them.
    const spent = await Promise.all(Array.from({ length: 29 }, () => app.limits.check([{ limit: limitById('consent-approvals'), key: user.id }])));
    expect(spent.every((d) => d?.allowed)).toBe(true);

    const context = await browser.newContext();
    try {
      // The 30th: a code reaches the app.
      const reachedFirst: string[] = [];
      const first = await consentPageOfNewApp(context, 'quinn', reachedFirst);
      const approved = await clickAllow(first);
      expect(approved.status()).toBe(303);
      await first.waitForURL(`${REDIRECT}**`);
      expect(reachedFirst).toHaveLength(1);
      expect(new URL(reachedFirst[0]!).searchParams.get('code')).toEqual(expect.any(String));
      await first.close();

      // The 31st, for another app in the same session: refused, and nothing is sent to the app.
      const reached: string[] = [];
      const second = await consentPageOfNewApp(context, 'quinn', reached);
      const refused = await clickAllow(second);
      expect(refused.status()).toBe(429);
      const headers = refused.headers();
      const retryAfter = Number(headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(headers['x-ratelimit-limit']).toBe('30');
      expect(headers['x-ratelimit-remaining']).toBe('0');
      expect(headers['content-type']).toMatch(/^text\/html/);
      await expect.poll(() => second.textContent('body'), { timeout: 30_000 }).toMatch(new RegExp(`Try again in ${retryAfter} seconds`));
      await second.screenshot({ path: screenshotPath('consent-approvals-429'), fullPage: true });
      // The refusal is the page's final answer: no redirect follows to the app, with a code or otherwise.
      await second.waitForLoadState('load');
      expect(new URL(second.url()).pathname).toMatch(/\/oauth\/authorize$/);
      expect(reached).toEqual([]);
      await second.close();
    } finally {
      await context.close();
    }
  });
});
