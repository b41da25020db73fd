// OAuth as a third-party app lives it: openid-client discovers the server through RFC 8414, then runs
// the authorization code flow with PKCE (public and confidential apps) and the device flow, while a
// user signs in and consents in real Chromium.
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { makeApp, makeUser, PASSWORD } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;
const REDIRECT = 'http://127.0.0.1:8799/callback';

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'alice');
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function discover(clientId: string, secret?: string) {
  return client.discovery(new URL(app.url), clientId, undefined, secret ? client.ClientSecretPost(secret) : client.None(), {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

/** Signs in as alice on the page the browser is on. */
async function signIn(page: Page, shot?: string) {
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill(PASSWORD);
  if (shot) await page.screenshot({ path: screenshotPath(shot), fullPage: true });
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Runs the browser part of a code flow and returns the URL the app's redirect URI received. */
async function authorizeInBrowser(url: URL, decision: 'Allow' | 'Deny', shots?: string): Promise<URL> {
  const context = await browser.newContext();
  const page = await context.newPage();
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, body: 'done' });
  });
  await page.goto(url.toString());
  await signIn(page, shots && `${shots}-sign-in`);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  if (shots) await page.screenshot({ path: screenshotPath(`${shots}-consent`), fullPage: true });
  await page.getByRole('button', { name: decision }).click();
  await page.waitForURL(`${REDIRECT}**`);
  await context.close();
  return callback!;
}

async function me(accessToken: string) {
  const res = await fetch(`${app.url}/api/platform/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('discovery', () => {
  it('serves RFC 8414 metadata at the service root with the issuer exactly', async () => {
    const res = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(app.url);
    expect(meta.authorization_endpoint).toBe(`${app.url}/api/platform/v1/oauth/authorize`);
    expect(meta.token_endpoint).toBe(`${app.url}/api/platform/v1/oauth/token`);
    expect(meta.revocation_endpoint).toBe(`${app.url}/api/platform/v1/oauth/revoke`);
    expect(meta.device_authorization_endpoint).toBe(`${app.url}/api/platform/v1/auth/device/code`);
    expect((meta.scopes_supported as string[]).length).toBe(16);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect((await fetch(`${app.url}/.well-known/openid-configuration`)).status).toBe(404);
  });
});

describe.each([
  ['public', false],
  ['confidential', true],
])('authorization code flow with PKCE, %s app', (kind, confidential) => {
  it('signs in, consents, exchanges the code and calls /me', async () => {
    const created = await makeApp(app, { confidential, redirectUri: REDIRECT });
    const config = await discover(created.client_id, created.client_secret ?? undefined);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'profile:read history:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await authorizeInBrowser(url, 'Allow', confidential ? undefined : 'code-flow');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('scope')).toBe('profile:read history:read');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(typeof tokens.refresh_token).toBe('string');
    expect(tokens.refresh_expires_in).toBeGreaterThan(0);
    expect(tokens.scope).toBe('profile:read history:read');
    const who = await me(tokens.access_token);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ username: 'alice', scopes: ['history:read', 'profile:read'], app: { clientId: created.client_id } });
    expect(kind).toBeTruthy();
  }, 60_000);
});
