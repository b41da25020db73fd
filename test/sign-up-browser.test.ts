// Sign-up in real Chromium: from the sign-in page of /account at a phone's width (390 px) and a
// desktop's (1280 px), with no horizontal scroll on the sign-up page, a form mistake shown and fixed,
// and the new user signed in on /account. From an authorization's sign-in page: the new user comes
// back to that authorization's consent page and the app gets a token for them; a return link opened
// in another browser signs nobody in to the authorization that browser did not start. With
// SIGNUPS=closed (an instance of its own): no sign-in page links to sign-up, GET and POST
// /account/sign-up answer 404 with a page saying sign-ups are closed and make no account, and the first
// start says so and how accounts are made instead.
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { createDemoAccount } from '../src/demo.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectNoSidewaysScroll, launchBrowser, screenshotPath } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { getMe } from './helpers/oauth.ts';
import { cookiesOf } from './helpers/sign-up.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const PASSWORD = 'a long enough password';

/** Whether the page is wider than the window (a horizontal scroll bar); a string: tests are typed without the DOM. */

async function fillSignUp(page: Page, username: string, confirm = PASSWORD) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(confirm);
}

describe('/account/sign-up', () => {
  it.each([
    [390, 844],
    [1280, 800],
  ])('at %i px wide: linked from sign-in, fits the width, shows a mistake, then signs the new user in', async (width, height) => {
    const context = await browser.newContext({ viewport: { width, height } });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/account/connected-apps`);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/account/sign-up');
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: screenshotPath(`sign-up-${width}`), fullPage: true });

      const username = `browser${width}`;
      await fillSignUp(page, username, 'not the same password');
      const [mistake] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/account/sign-up') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create account' }).click()]);
      expect(mistake.status()).toBe(400);
      await expect(page.getByRole('alert').innerText()).resolves.toBe('The two passwords do not match.');
      expect(await page.getByLabel('Username').inputValue()).toBe(username);
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: screenshotPath(`sign-up-${width}-mistake`), fullPage: true });

      await fillSignUp(page, username);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Your account' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/account');
      expect(await page.locator('main').innerText()).toContain(`Signed in as ${username}.`);
    } finally {
      await context.close();
    }
  });
});

describe('sign-up in the middle of an authorization', () => {
  it('comes back to the consent page of that authorization, and the app gets a token for the new user', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const { url, verifier, state } = await authorizationUrl(c);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      let callback: URL | undefined;
      await page.route(`${REDIRECT}**`, async (route) => {
        callback = new URL(route.request().url());
        await route.fulfill({ status: 200, body: 'done' });
      });
      await page.goto(url.toString());
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      const interaction = new URL(page.url()).pathname;
      expect(interaction).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);

      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      expect(new URL(page.url()).searchParams.get('return')).toBe(interaction);
      await fillSignUp(page, 'from_an_app');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
      expect(await page.locator('main').innerText()).toContain('Living Room TV wants to act for from_an_app');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByText('done').waitFor();

      const tokens = await client.authorizationCodeGrant(c.config, callback!, { pkceCodeVerifier: verifier, expectedState: state });
      const me = await getMe(app, tokens.access_token);
      expect(me.status).toBe(200);
      expect(me.body.username).toBe('from_an_app');
    } finally {
      await context.close();
    }
  });

  it("a return link opened in another browser signs nobody in: that browser is told so, the first still asks for a sign-in", async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const starter = await browser.newContext();
    const other = await browser.newContext();
    try {
      const a = await starter.newPage();
      await a.goto((await authorizationUrl(c)).url.toString());
      await a.getByRole('button', { name: 'Sign in' }).waitFor();
      const link = await a.getByRole('link', { name: 'Create an account' }).getAttribute('href');

      const b = await other.newPage();
      await b.goto(`${app.url}${link}`);
      await fillSignUp(b, 'phished');
      const [landing] = await Promise.all([b.waitForResponse((r) => r.url().includes('/oauth/interaction/')), b.getByRole('button', { name: 'Create account' }).click()]);
      expect(landing.status()).toBe(403);
      await b.getByText('This sign-in was started in another browser').waitFor();

      await a.reload();
      await a.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await a.getByRole('heading', { name: 'Allow access?' }).count()).toBe(0);
    } finally {
      await starter.close();
      await other.close();
    }
  });
});

describe('with SIGNUPS=closed', () => {
  let closed: TestApp;
  beforeAll(async () => {
    closed = await startTestApp({ SIGNUPS: 'closed' });
  });
  afterAll(() => closed?.stop());

  it('GET /account/sign-up is 404 saying sign-ups are closed, with or without a return path', async () => {
    for (const path of ['/account/sign-up', '/account/sign-up?return=%2Foauth%2Finteraction%2Fabc']) {
      const res = await fetch(`${closed.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const text = await res.text();
      expect(text).toContain('<h1>Sign-ups are closed</h1>');
      expect(text).not.toContain('<form');
    }
  });

  it('POST /account/sign-up is 404 and makes no account, even with a nonce from the sign-in page', async () => {
    const signIn = await fetch(`${closed.url}/account/connected-apps`);
    const cookie = cookiesOf(signIn.headers);
    const nonce = /name="nonce" value="([^"]+)"/.exec(await signIn.text())![1]!;
    const res = await fetch(`${closed.url}/account/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ nonce, username: 'gatecrasher', password: PASSWORD, confirm: PASSWORD }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<h1>Sign-ups are closed</h1>');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('_session='))).toBe(false);
    const rows = await query<{ n: number }>(closed.db.orm.em.fork(), { text: `select count(*)::int as n from app_user where lower(username) = 'gatecrasher'`, params: [] });
    expect(rows[0]!.n).toBe(0);
  });

  it('no sign-in page links to sign-up: not /account, not an authorization', async () => {
    const account = await (await fetch(`${closed.url}/account/connected-apps`)).text();
    expect(account).toContain('<h1>Sign in</h1>');
    expect(account).not.toContain('sign-up');
    expect(account).not.toContain('Create an account');

    const c = await newCodeClient(closed, { scopes: ['profile:read'] });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto((await authorizationUrl(c)).url.toString());
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.getByRole('link').count()).toBe(0);
      expect(await page.content()).not.toContain('sign-up');
    } finally {
      await context.close();
    }
  });

  it('the first start says sign-ups are closed and how accounts are made', async () => {
    const demo = await createDemoAccount(closed.db.orm.em.fork(), closed.url, 'closed');
    expect(demo.instructions).toContain('Sign-ups are closed (SIGNUPS=closed): make accounts with npm run admin -- user:create');
    expect(demo.instructions).not.toContain('/account/sign-up');
  });
});
