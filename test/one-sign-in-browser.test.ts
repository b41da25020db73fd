// One sign-in per browser, in Chromium. Signed in at /account, the browser approves a device without
// typing the password again, and the device's poll gets tokens; signed out at /account, the device
// page asks for the password again. The other way round: signed in while approving a device, the
// browser finds itself signed in at /account. A sign-in page left open while the user signed in at
// /account in another tab moves on to the consent page. What must not follow from one sign-in: an app
// asking for a fresh sign-in (prompt=login) still gets the password typed, and not another user's; a
// signed-in browser handed an authorization started in another browser signs nobody in to it; a
// consent page left open after signing out approves nothing. And a device code confirmed and left
// without a decision can be entered again in the same browser (not in another) and approved.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectAccessible } from './helpers/axe.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { getMe, makeApp, makeUser, postJson, signIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  for (const name of ['uma', 'vic', 'wes', 'xena', 'yuri', 'zack']) await makeUser(app, name);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const PHONE = { width: 390, height: 844 };
const API = '/api/platform/v1';

type Device = { device_code: string; user_code: string; verification_uri: string; clientId: string };

/** A TV app asks for a device code (a new app each time: the device endpoints count per app). */
async function newDevice(): Promise<Device> {
  const tv = await makeApp(app, { scopes: ['profile:read'] });
  const res = await postJson(`${app.url}${API}/auth/device/code`, { client_id: tv.client_id, scope: 'profile:read' });
  expect(res.status).toBe(200);
  return { ...(res.body as Omit<Device, 'clientId'>), clientId: tv.client_id };
}

const poll = (d: Device) => postJson(`${app.url}${API}/auth/device/token`, { client_id: d.clientId, device_code: d.device_code });

/** The device got tokens, and they act for `username`. */
async function expectTokensFor(d: Device, username: string) {
  const tokens = await poll(d);
  expect(tokens.status).toBe(200);
  expect(tokens.body).toMatchObject({ token_type: 'bearer', scope: 'profile:read' });
  const me = await getMe(app, tokens.body.access_token as string);
  expect(me.body.username).toBe(username);
}

/** Types the device's code at the verification page and confirms it matches. */
async function confirmCode(page: Page, d: Device) {
  await page.goto(d.verification_uri);
  await page.getByLabel('Code shown on your device').fill(d.user_code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Yes, it matches' }).click();
}

const signInButton = (page: Page) => page.getByRole('button', { name: 'Sign in' });
const allowButton = (page: Page) => page.getByRole('button', { name: 'Allow' });

async function signInAtAccount(page: Page, username: string) {
  await page.goto(`${app.url}/account`);
  await signIn(page, username);
  await page.getByText(`Signed in as ${username}.`).waitFor();
}

async function withContext(fn: (context: BrowserContext) => Promise<void>) {
  const context = await browser.newContext({ viewport: PHONE });
  try {
    await fn(context);
  } finally {
    await context.close();
  }
}

describe('signed in at /account', () => {
  it('approves a device without a second sign-in; the device gets tokens; after signing out the device page asks again', () =>
    withContext(async (context) => {
      const page = await context.newPage();
      await signInAtAccount(page, 'uma');

      const device = await newDevice();
      expect((await poll(device)).body).toMatchObject({ error: 'authorization_pending' });
      await confirmCode(page, device);
      await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
      expect(await signInButton(page).count()).toBe(0);
      expect(await page.locator('main').innerText()).toContain('Living Room TV wants to act for uma');
      await page.screenshot({ path: screenshotPath('one-sign-in-device-consent'), fullPage: true });
      await expectAccessible(page);
      await allowButton(page).click();
      await page.getByRole('heading', { name: 'Device connected' }).waitFor();
      await expectTokensFor(device, 'uma');

      await page.goto(`${app.url}/account`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signInButton(page).waitFor();

      const next = await newDevice();
      await confirmCode(page, next);
      await signInButton(page).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
      expect(await allowButton(page).count()).toBe(0);
      expect((await poll(next)).body).toMatchObject({ error: 'authorization_pending' });
    }));

  it('a sign-in page left open moves on to the consent page once the browser signed in at /account in another tab', () =>
    withContext(async (context) => {
      const device = await newDevice();
      const tab = await context.newPage();
      await confirmCode(tab, device);
      await signInButton(tab).waitFor();

      await signInAtAccount(await context.newPage(), 'vic');
      await tab.reload();
      await allowButton(tab).waitFor();
      expect(await tab.locator('main').innerText()).toContain('wants to act for vic');
      await allowButton(tab).click();
      await tab.getByRole('heading', { name: 'Device connected' }).waitFor();
      await expectTokensFor(device, 'vic');
    }));

  it("an app asking for a fresh sign-in (prompt=login) still gets the password typed, and not another user's", () =>
    withContext(async (context) => {
      const page = await context.newPage();
      await signInAtAccount(page, 'wes');
      const c = await newCodeClient(app, { scopes: ['profile:read'] });
      const { url } = await authorizationUrl(c, 'profile:read');
      url.searchParams.set('prompt', 'login');
      await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'done' }));
      await page.goto(url.toString());
      await signInButton(page).waitFor();
      await page.reload();
      await signInButton(page).waitFor();
      expect(await allowButton(page).count()).toBe(0);

      // Another user's password on this page is refused: the browser is still wes's.
      await signIn(page, 'vic');
      await page.getByText('This browser is signed in as someone else.').waitFor();
      expect(await allowButton(page).count()).toBe(0);
      await page.goto(`${app.url}/account`);
      await page.getByText('Signed in as wes.').waitFor();
    }));
});

describe('signed in while approving', () => {
  it('a device approved with a sign-in on its page leaves the browser signed in at /account; signing out there ends it', () =>
    withContext(async (context) => {
      const page = await context.newPage();
      const device = await newDevice();
      await confirmCode(page, device);
      await signIn(page, 'xena');
      await allowButton(page).click();
      await page.getByRole('heading', { name: 'Device connected' }).waitFor();
      await expectTokensFor(device, 'xena');

      await page.goto(`${app.url}/account`);
      await page.getByText('Signed in as xena.').waitFor();
      expect(await page.getByLabel('Password').count()).toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signInButton(page).waitFor();
      await page.goto(`${app.url}/account/connected-apps`);
      await signInButton(page).waitFor();
    }));
});

describe('what one sign-in does not give', () => {
  it('a signed-in browser handed an authorization started in another browser signs nobody in to it', async () => {
    const starter = await browser.newContext({ viewport: PHONE });
    const victim = await browser.newContext({ viewport: PHONE });
    try {
      const c = await newCodeClient(app, { scopes: ['profile:read'] });
      const a = await starter.newPage();
      await a.goto((await authorizationUrl(c, 'profile:read')).url.toString());
      await signInButton(a).waitFor();

      const b = await victim.newPage();
      await signInAtAccount(b, 'yuri');
      const [landing] = await Promise.all([b.waitForResponse((r) => r.url() === a.url()), b.goto(a.url())]);
      expect(landing.status()).toBe(403);
      await b.getByText('This sign-in was started in another browser').waitFor();

      await a.reload();
      await signInButton(a).waitFor();
      expect(await allowButton(a).count()).toBe(0);
    } finally {
      await starter.close();
      await victim.close();
    }
  });

  it('a consent page left open after signing out at /account approves nothing', () =>
    withContext(async (context) => {
      const page = await context.newPage();
      await signInAtAccount(page, 'zack');
      const device = await newDevice();
      await confirmCode(page, device);
      await allowButton(page).waitFor();

      const other = await context.newPage();
      await other.goto(`${app.url}/account`);
      await other.getByRole('button', { name: 'Sign out' }).click();
      await signInButton(other).waitFor();

      const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), allowButton(page).click()]);
      expect(answer.status()).toBe(403);
      expect((await poll(device)).body).toMatchObject({ error: 'authorization_pending' });
    }));
});

describe('a device confirmation left without a decision', () => {
  it('keeps the code: the same browser enters it again and approves, the device gets tokens; another browser is refused meanwhile', async () => {
    const device = await newDevice();
    const owner = await browser.newContext({ viewport: PHONE });
    const stranger = await browser.newContext({ viewport: PHONE });
    try {
      const left = await owner.newPage();
      await confirmCode(left, device);
      await signInButton(left).waitFor();
      await left.close();
      expect((await poll(device)).body).toMatchObject({ error: 'authorization_pending' });

      const s = await stranger.newPage();
      await s.goto(device.verification_uri);
      await s.getByLabel('Code shown on your device').fill(device.user_code);
      await s.getByRole('button', { name: 'Continue' }).click();
      await s.getByText('That code is not valid or has expired.').waitFor();

      const again = await owner.newPage();
      await confirmCode(again, device);
      await signIn(again, 'uma');
      await allowButton(again).click();
      await again.getByRole('heading', { name: 'Device connected' }).waitFor();
      await expectTokensFor(device, 'uma');

      // Decided: the code is spent for everyone, the browser that confirmed it included.
      await again.goto(device.verification_uri);
      await again.getByLabel('Code shown on your device').fill(device.user_code);
      await again.getByRole('button', { name: 'Continue' }).click();
      await again.getByText('That code is not valid or has expired.').waitFor();
    } finally {
      await owner.close();
      await stranger.close();
    }
  });
});
