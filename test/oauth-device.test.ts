// The device flow as a TV app and its user live it: openid-client asks for a device code and polls
// while the user types the code in Chromium on a phone-sized screen, confirms, signs in and consents.
// Also writes screenshots of the three OAuth pages at phone and desktop widths.
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { makeApp, makeUser, PASSWORD, postJson } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'alice');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

async function shoot(page: Page, name: string) {
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: screenshotPath(`${name}-${label}`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.phone);
}

/** The user's side: type (or arrive with) the code, confirm, sign in, allow. */
async function approveInBrowser(context: BrowserContext, userCode: string, opts: { prefilled?: string; screenshots?: boolean } = {}) {
  const page = await context.newPage();
  if (opts.prefilled) {
    await page.goto(opts.prefilled);
  } else {
    await page.goto(`${app.url}/api/platform/v1/auth/device`);
    if (opts.screenshots) await shoot(page, 'device-code-entry');
    await page.getByLabel('Code shown on your device').fill(userCode.toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: 'Continue' }).click();
  }
  await page.getByRole('button', { name: 'Yes, it matches' }).click();
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill(PASSWORD);
  if (opts.screenshots) await shoot(page, 'sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  if (opts.screenshots) await shoot(page, 'consent');
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByRole('heading', { name: 'Device connected' }).waitFor();
  if (opts.screenshots) await shoot(page, 'device-connected');
  await page.close();
}

describe('device flow', () => {
  it('issues tokens to a polling client once the user approves in the browser', async () => {
    const created = await makeApp(app, { scopes: ['profile:read', 'history:read', 'playback:write'] });
    const config = await client.discovery(new URL(app.url), created.client_id, undefined, client.None(), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    const device = await client.initiateDeviceAuthorization(config, { scope: 'profile:read playback:write' });
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    // Until the user approves, polling says so.
    const pending = await postJson(`${app.url}/api/platform/v1/auth/device/token`, { client_id: created.client_id, device_code: device.device_code });
    expect(pending.status).toBe(400);
    expect(pending.body).toMatchObject({ error: 'authorization_pending', request_id: expect.stringMatching(/^req_/) });

    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    const [tokens] = await Promise.all([
      client.pollDeviceAuthorizationGrant(config, device),
      approveInBrowser(context, device.user_code, { screenshots: true }),
    ]);
    await context.close();
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('profile:read playback:write');
    const me = await fetch(`${app.url}/api/platform/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(((await me.json()) as { username: string }).username).toBe('alice');
  });

  it('answers the JSON shim (/auth/device/token) with tokens and the username after approval from verification_uri_complete', async () => {
    const created = await makeApp(app);
    const code = await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: created.client_id, client_secret: null });
    expect(code.status).toBe(200);
    expect(Object.keys(code.body).sort()).toEqual(
      ['device_code', 'expires_in', 'interval', 'scope', 'user_code', 'verification_uri', 'verification_uri_complete', 'verification_uri_qr'].sort(),
    );
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await approveInBrowser(context, String(code.body.user_code), { prefilled: String(code.body.verification_uri_complete) });
    await context.close();
    const token = await postJson(`${app.url}/api/platform/v1/auth/device/token`, {
      client_id: created.client_id,
      device_code: code.body.device_code,
      device_name: 'Living room',
    });
    expect(token.status).toBe(200);
    expect(Object.keys(token.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'scope', 'token_type', 'username']);
    expect(token.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, username: 'alice', scope: created.allowed_scopes.join(' ') });
    // A device code is good for one set of tokens.
    const again = await postJson(`${app.url}/api/platform/v1/auth/device/token`, { client_id: created.client_id, device_code: code.body.device_code });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('expired');
  });
});
