// OAuth as a third-party app lives it: openid-client discovers the server through RFC 8414, then runs
// the authorization code flow with PKCE (public and confidential apps) and the device flow, while a
// user signs in and consents in real Chromium.
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { discover, REDIRECT } from './helpers/code-flow.ts';
import { authorizeInBrowser, getMe, makeApp, makeUser } from './helpers/oauth.ts';

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
    const config = await discover(app, created.client_id, created.client_secret);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'profile:read history:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    // A context of its own: the user signs in (the screenshots show the sign-in and consent pages).
    const context = await browser.newContext();
    const callback = await authorizeInBrowser(context, url, { redirectUri: REDIRECT, username: 'alice', shots: confidential ? undefined : 'code-flow' });
    await context.close();
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('scope')).toBe('profile:read history:read');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(typeof tokens.refresh_token).toBe('string');
    expect(tokens.refresh_expires_in).toBeGreaterThan(0);
    expect(tokens.scope).toBe('profile:read history:read');
    const who = await getMe(app, tokens.access_token);
    expect(who.status).toBe(200);
    expect(who.body).toMatchObject({ username: 'alice', scopes: ['history:read', 'profile:read'], app: { clientId: created.client_id } });
    expect(kind).toBeTruthy();
  });
});
