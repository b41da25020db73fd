// Sessions end when they say they end. A browser has one session, the authorization server's, for the
// account pages and approvals alike. Signing out of /account deletes it on the server, so a copy of the
// old cookie (kept by an attacker, or a shared computer's browser history) no longer opens the account,
// and the next authorization in that browser asks for a password again instead of signing the next
// person in.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { makeUser, PASSWORD, postAccountSignIn, sessionCookie, signIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'leaver');
  await makeUser(app, 'shared_pc');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** Signs in at /account by form; returns the session cookie and the page's CSRF token. */
async function accountSession(username: string): Promise<{ cookie: string; csrf: string }> {
  const res = await postAccountSignIn(app, username, PASSWORD);
  expect(res.status).toBe(303);
  const cookie = sessionCookie(res.headers);
  const page = await (await fetch(`${app.url}/account/connected-apps`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]! };
}

const accountPage = async (cookie: string) => (await fetch(`${app.url}/account/connected-apps`, { headers: { cookie } })).text();

describe('/account sign-out', () => {
  it('ends the session on the server: the old cookie opens nothing afterwards', async () => {
    const { cookie, csrf } = await accountSession('leaver');
    expect(await accountPage(cookie)).toContain('leaver');
    const out = await fetch(`${app.url}/account/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie().some((c) => /^_session=;.*expires=Thu, 01 Jan 1970/.test(c))).toBe(true);
    // The cookie as it was before signing out, sent again.
    const after = await accountPage(cookie);
    expect(after).not.toContain('leaver');
    expect(after).toContain('name="nonce"');
  });

  it('a sign-out without the CSRF token ends nothing', async () => {
    const { cookie } = await accountSession('leaver');
    await fetch(`${app.url}/account/sign-out`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: '' });
    expect(await accountPage(cookie)).toContain('leaver');
  });

  it("ends the browser's session with the authorization server: the next authorization asks for a password", async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'done' }));
      await page.goto((await authorizationUrl(c)).url.toString());
      await signIn(page, 'shared_pc');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${REDIRECT}**`);
      // Signed in with the authorization server: a second authorization skips the password.
      await page.goto((await authorizationUrl(c)).url.toString());
      await page.getByRole('button', { name: 'Allow' }).or(page.getByText('done')).waitFor();
      expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0);

      // One sign-in: the account pages know the browser already.
      await page.goto(`${app.url}/account/connected-apps`);
      await page.getByText('Signed in as shared_pc').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();

      await page.goto((await authorizationUrl(c)).url.toString());
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(page.url()).toMatch(/\/oauth\/interaction\//);
    } finally {
      await context.close();
    }
  });
});
