// Developer apps in Chromium: a signed-in user registers an app at /account/apps, sees its client id and,
// once, its secret; the secret gets real tokens through openid-client; rotating refuses the old secret at
// once; deactivating ends the app's tokens; deleting removes it. The pages fit a phone (390 px) and a
// desktop (1280 px) without sideways scrolling. An app made here is never official.
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findApp } from '../src/core/apps/service.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectNoSidewaysScroll, launchBrowser, screenshotPath } from './helpers/browser.ts';
import { approvedCode, discover, REDIRECT, type CodeClient } from './helpers/code-flow.ts';
import { expectError } from './helpers/envelope.ts';
import { getMe, makeUser, signIn } from './helpers/oauth.ts';
import { platform } from './helpers/seed.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  await Promise.all(['dora', 'lena_390', 'lena_1280'].map((u) => makeUser(app, u)));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const SCOPES = ['profile:read', 'notifications:read', 'notifications:write'];

/** Signs in at /account and registers an app through the form; returns its page. */
async function register(context: BrowserContext, opts: { username: string; name: string; redirectUris: string[]; confidential: boolean; scopes: string[]; shots?: string }) {
  const page = await context.newPage();
  await page.goto(`${app.url}/account`);
  await signIn(page, opts.username);
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await expectNoSidewaysScroll(page);
  if (opts.shots) await page.screenshot({ path: screenshotPath(`${opts.shots}-account`), fullPage: true });
  await page.getByRole('link', { name: 'Your apps (developer)' }).click();
  await page.getByRole('heading', { name: 'Your apps' }).waitFor();
  await page.getByRole('link', { name: 'Register an app' }).click();
  await page.getByRole('heading', { name: 'Register an app' }).waitFor();
  await expectNoSidewaysScroll(page);
  await page.getByLabel('Name').fill(opts.name);
  await page.getByLabel('Redirect URIs').fill(opts.redirectUris.join('\n'));
  await page.getByLabel(opts.confidential ? 'Confidential' : 'Public').check();
  await page.getByLabel('profile:read').uncheck();
  for (const scope of opts.scopes) await page.getByLabel(scope, { exact: false }).check();
  if (opts.shots) await page.screenshot({ path: screenshotPath(`${opts.shots}-new`), fullPage: true });
  await page.getByRole('button', { name: 'Register app' }).click();
  await page.getByRole('heading', { name: opts.name }).waitFor();
  return page;
}

const clientIdOn = async (page: Page) => (await page.locator('code.client-id').first().innerText()).trim();
const secretOn = async (page: Page) => (await page.locator('#client-secret').innerText()).trim();

describe('registering and managing an app in the browser', () => {
  let context: BrowserContext;
  let page: Page;
  let code: CodeClient;
  let refresh: string;
  let access: string;

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  });

  it('registers a confidential app: its client id and, once, its secret, which gets real tokens', async () => {
    page = await register(context, { username: 'dora', name: 'Dora Web', redirectUris: [REDIRECT], confidential: true, scopes: SCOPES, shots: 'developer-apps' });
    const clientId = await clientIdOn(page);
    expect(clientId).toMatch(/^app_[A-Za-z0-9_-]{24}$/);
    const secret = await secretOn(page);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.getByRole('status').first().innerText()).toContain('The app is registered.');
    await page.screenshot({ path: screenshotPath('developer-apps-created'), fullPage: true });

    // Shown once: a reload of the same page no longer has it.
    await page.reload();
    await page.getByRole('heading', { name: 'Dora Web' }).waitFor();
    expect(await page.locator('#client-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const stored = (await findApp(app.db.orm.em.fork(), clientId))!;
    expect(stored).toMatchObject({ name: 'Dora Web', redirect_uris: [REDIRECT], allowed_scopes: SCOPES, confidential: true, official: false, active: true });

    code = { clientId, secret, scopes: SCOPES, config: await discover(app, clientId, secret) };
    const approved = await approvedCode(context, code, { username: 'dora', scope: SCOPES.join(' ') });
    const tokens = await client.authorizationCodeGrant(code.config, approved.callback, { pkceCodeVerifier: approved.verifier, expectedState: approved.state });
    access = tokens.access_token;
    refresh = tokens.refresh_token!;
    expect((await getMe(app, access)).status).toBe(200);
  });

  it('is never official: its tokens get first_party_only where official apps are needed', async () => {
    const body = { token: 'f'.repeat(64), platform: 'ios', provider: 'apns', environment: 'production', deviceId: 'dora-phone', deviceName: 'Dora' };
    expectError(await platform(app, access, 'POST', '/me/push-devices', body), 403, 'first_party_only');
  });

  it('lists the app with its client id, type, scopes, redirect URIs, status and active grants', async () => {
    await page.goto(`${app.url}/account/apps`);
    const item = page.locator('ul.apps > li').filter({ hasText: 'Dora Web' });
    expect(await item.locator('code.client-id').innerText()).toBe(code.clientId);
    expect(await item.locator('.grants').innerText()).toBe('1');
    const text = await item.innerText();
    for (const expected of ['Confidential', 'Active', REDIRECT, ...SCOPES]) expect(text).toContain(expected);
    expect(text).not.toContain('history:read');
    await expectNoSidewaysScroll(page);
  });

  it('rotates the secret: shown once, the old one refused with invalid_client at once, the new one accepted', async () => {
    await page.goto(`${app.url}/account/apps/${code.clientId}`);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('The secret is rotated').waitFor();
    const fresh = await secretOn(page);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(code.secret);
    await page.reload();
    expect(await page.locator('#client-secret').count()).toBe(0);

    const old = await client.refreshTokenGrant(code.config, refresh).catch((e: unknown) => e);
    expect(old).toBeInstanceOf(client.ResponseBodyError);
    expect({ status: (old as client.ResponseBodyError).status, error: (old as client.ResponseBodyError).error }).toEqual({ status: 401, error: 'invalid_client' });

    const config = await discover(app, code.clientId, fresh);
    const renewed = await client.refreshTokenGrant(config, refresh);
    access = renewed.access_token;
    refresh = renewed.refresh_token!;
    expect((await getMe(app, access)).status).toBe(200);
    code = { ...code, secret: fresh, config };
  });

  it('deactivates: its tokens stop working and it gets no new ones; activating lets it ask again', async () => {
    await page.goto(`${app.url}/account/apps/${code.clientId}`);
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('Deactivated').waitFor();
    expect((await getMe(app, access)).status).toBe(401);
    const refused = (await client.refreshTokenGrant(code.config, refresh).catch((e: unknown) => e)) as client.ResponseBodyError;
    expect({ status: refused.status, error: refused.error }).toEqual({ status: 400, error: 'unauthorized_client' });

    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Deactivate' }).waitFor();
    // Deactivation revoked for good: the old refresh token does not come back with the app.
    const stale = (await client.refreshTokenGrant(code.config, refresh).catch((e: unknown) => e)) as client.ResponseBodyError;
    expect({ status: stale.status, error: stale.error }).toEqual({ status: 400, error: 'invalid_grant' });
    const approved = await approvedCode(context, code, { username: 'dora', scope: SCOPES.join(' ') });
    const tokens = await client.authorizationCodeGrant(code.config, approved.callback, { pkceCodeVerifier: approved.verifier, expectedState: approved.state });
    access = tokens.access_token;
    expect((await getMe(app, access)).status).toBe(200);
  });

  it('deletes after a confirmation: every token ends and the client id is unknown', async () => {
    await page.goto(`${app.url}/account/apps/${code.clientId}`);
    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.getByRole('heading', { name: 'Delete Dora Web?' }).waitFor();
    await page.getByRole('button', { name: 'Delete Dora Web for good' }).click();
    await page.getByText('The app is deleted.').waitFor();
    expect(await page.locator('ul.apps').count()).toBe(0);
    expect(await findApp(app.db.orm.em.fork(), code.clientId)).toBeNull();
    expect((await getMe(app, access)).status).toBe(401);
    const gone = (await client.refreshTokenGrant(code.config, refresh).catch((e: unknown) => e)) as client.ResponseBodyError;
    expect({ status: gone.status, error: gone.error }).toEqual({ status: 400, error: 'unauthorized_client' });
    expect((await page.goto(`${app.url}/account/apps/${code.clientId}`))!.status()).toBe(404);
  });
});

describe.each([390, 1280])('the pages at %i px', (width) => {
  it('have no sideways scroll, with a long name and redirect URI', async () => {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const name = 'A rather long application name for a phone screen, with WordsThatDoNotBreakAnywhereAtAll';
    const longUri = `https://callback.example.com/${'segment/'.repeat(12)}oauth-callback-with-a-long-name`;
    const page = await register(context, {
      username: `lena_${width}`,
      name,
      redirectUris: [longUri, 'com.example.tracker:/oauth/callback'],
      confidential: true,
      scopes: ['history:read', 'history:write', 'lists:read', 'playback:read'],
      shots: `developer-apps-${width}`,
    });
    await expectNoSidewaysScroll(page);
    await page.screenshot({ path: screenshotPath(`developer-apps-${width}-app`), fullPage: true });
    await page.getByRole('link', { name: 'Back to your apps' }).click();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    await expectNoSidewaysScroll(page);
    await page.screenshot({ path: screenshotPath(`developer-apps-${width}-list`), fullPage: true });
    await page.getByRole('link', { name }).click();
    await page.getByRole('link', { name: 'Delete…' }).click();
    await page.getByRole('heading', { name: `Delete ${name}?` }).waitFor();
    await expectNoSidewaysScroll(page);
    await context.close();
  });
});
