// What the authorization server refuses, and how, against the running service: device codes (shape,
// pending, unknown, expired), the user's denial, scopes (omitted, outside the app's, reserved), inactive
// apps, wrong client secrets, PKCE, and redirect URIs that are not registered. A refusal that has a
// registered redirect URI goes back to the app; one that has not is shown to the user as a page.
import * as client from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAppActive } from '../src/core/apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { approvedCode, authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { expectError } from './helpers/envelope.ts';
import { authorizeInBrowser, getMe, makeApp, makeUser, postForm, postJson } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'alice');
  browser = await launchBrowser();
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const path = (p: string) => `${app.url}/api/platform/v1${p}`;
const alice = { username: 'alice' };

/** The authorization endpoint's answer as the browser would get it, without following redirects. */
async function authorize(params: Record<string, string>) {
  const url = new URL(path('/oauth/authorize'));
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, type: res.headers.get('content-type') ?? '', location: location ? new URL(location, app.url) : null, body: await res.text() };
}

/** A redirect back to the registered URI carrying `error` and the state, and no code. */
function expectErrorRedirect(res: Awaited<ReturnType<typeof authorize>>, error: string, state: string) {
  expect(res.status).toBe(302);
  expect(res.location).not.toBeNull();
  expect(`${res.location!.origin}${res.location!.pathname}`).toBe(REDIRECT);
  expect(res.location!.searchParams.get('error')).toBe(error);
  expect(res.location!.searchParams.get('state')).toBe(state);
  expect(res.location!.searchParams.has('code')).toBe(false);
}

/** An HTML error page: no redirect anywhere. */
function expectErrorPage(res: Awaited<ReturnType<typeof authorize>>) {
  expect(res.status).toBe(400);
  expect(res.location).toBeNull();
  expect(res.type).toMatch(/^text\/html/);
}

async function pkceParams(clientId: string, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'profile:read',
    state: client.randomState(),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  };
}

describe('device codes', () => {
  it('answers with the documented shape, then authorization_pending; unknown and expired codes are expired', async () => {
    const created = await makeApp(app, { scopes: ['profile:read', 'history:read'] });
    const res = await postJson(path('/auth/device/code'), { client_id: created.client_id, scope: 'profile:read' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      ['device_code', 'expires_in', 'interval', 'scope', 'user_code', 'verification_uri', 'verification_uri_complete', 'verification_uri_qr'],
    );
    const body = res.body as Record<string, string | number>;
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.device_code).toEqual(expect.any(String));
    expect(body.verification_uri).toBe(path('/auth/device'));
    const complete = new URL(String(body.verification_uri_complete));
    expect(`${complete.origin}${complete.pathname}`).toBe(body.verification_uri);
    expect(complete.searchParams.get('user_code')).toBe(body.user_code);
    expect(body.verification_uri_qr).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(String(body.verification_uri_qr).slice('data:image/png;base64,'.length), 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(body.expires_in).toBe(600);
    expect(body.interval).toBe(5);
    expect(body.scope).toBe('profile:read');

    const poll = (deviceCode: unknown) => postJson(path('/auth/device/token'), { client_id: created.client_id, device_code: deviceCode });
    expectError(await poll(body.device_code), 400, 'authorization_pending');
    expectError(await poll('no-such-device-code'), 400, 'expired');

    // Age this app's device code past its lifetime in the database itself.
    await query(app.db.orm.em.fork(), {
      text: `update oauth_artifact set expires_at = now() - interval '1 second' where model = 'DeviceCode' and payload->>'clientId' = $1`,
      params: [created.client_id],
    });
    expectError(await poll(body.device_code), 400, 'expired');
  });
});

describe('consent', () => {
  it('sends a denial back to the app as error=access_denied with the state', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const { url, state } = await authorizationUrl(c, 'profile:read');
    const callback = await authorizeInBrowser(context, url, { redirectUri: REDIRECT, decision: 'Deny', ...alice });
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.has('code')).toBe(false);
  });
});

describe('scopes', () => {
  it('grants the app\'s allowed scopes when scope is omitted (code flow and device code)', async () => {
    const allowed = ['profile:read', 'lists:read', 'ratings:write'];
    const c = await newCodeClient(app, { scopes: allowed });
    const { url, verifier, state } = await authorizationUrl(c);
    expect(url.searchParams.has('scope')).toBe(false);
    const callback = await authorizeInBrowser(context, url, { redirectUri: REDIRECT, ...alice });
    expect(callback.searchParams.get('scope')).toBe(allowed.join(' '));
    const tokens = await client.authorizationCodeGrant(c.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.scope).toBe(allowed.join(' '));
    expect((await getMe(app, tokens.access_token)).body.scopes).toEqual([...allowed].sort());

    const device = await postJson(path('/auth/device/code'), { client_id: c.clientId });
    expect(device.status).toBe(200);
    expect(device.body.scope).toBe(allowed.join(' '));
  });

  it('refuses a scope outside the app\'s allowed scopes, and email:read, with invalid_scope', async () => {
    const narrow = await newCodeClient(app, { scopes: ['profile:read'] });
    // All 16 scopes allowed: email:read is still never granted.
    const wide = await newCodeClient(app);
    for (const [c, scope] of [[narrow, 'profile:read trophies:read'], [wide, 'email:read'], [wide, 'profile:read email:read']] as const) {
      expectError(await postJson(path('/auth/device/code'), { client_id: c.clientId, scope }), 400, 'invalid_scope');
      const params = await pkceParams(c.clientId, { scope });
      expectErrorRedirect(await authorize(params), 'invalid_scope', params.state);
    }
  });
});

describe('inactive apps', () => {
  it('answers unauthorized_client on the device and token endpoints and an error page on authorize', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    await setAppActive(app.db.orm.em.fork(), c.clientId, false);
    const id = c.clientId;
    expectError(await postJson(path('/auth/device/code'), { client_id: id }), 400, 'unauthorized_client');
    expectError(await postJson(path('/auth/device/token'), { client_id: id, device_code: 'x' }), 400, 'unauthorized_client');
    expectError(await postJson(path('/auth/refresh'), { client_id: id, refresh_token: 'x' }), 400, 'unauthorized_client');
    expectError(await postJson(path('/oauth/revoke'), { client_id: id, token: 'x' }), 400, 'unauthorized_client');
    const code = { grant_type: 'authorization_code', client_id: id, code: 'x', code_verifier: 'x'.repeat(43), redirect_uri: REDIRECT };
    expectError(await postForm(path('/oauth/token'), code), 400, 'unauthorized_client');
    expectErrorPage(await authorize(await pkceParams(id)));
    // An unknown app is treated alike.
    expectError(await postJson(path('/auth/device/code'), { client_id: 'app_unknown' }), 400, 'unauthorized_client');
    expectErrorPage(await authorize(await pkceParams('app_unknown')));
  });
});

describe('client authentication', () => {
  it('answers a wrong or missing client secret with 401 invalid_client, leaving the code usable', async () => {
    const c = await newCodeClient(app, { confidential: true, scopes: ['profile:read'] });
    const { callback, verifier, state, code } = await approvedCode(context, c, alice);
    const form = { grant_type: 'authorization_code', client_id: c.clientId, code, code_verifier: verifier, redirect_uri: REDIRECT };
    expectError(await postForm(path('/oauth/token'), { ...form, client_secret: `${c.secret}x` }), 401, 'invalid_client');
    expectError(await postJson(path('/oauth/token'), { ...form, client_secret: 'wrong' }), 401, 'invalid_client');
    expectError(await postForm(path('/oauth/token'), form), 401, 'invalid_client');
    // The failed attempts never reached the code: the right secret still redeems it.
    const tokens = await client.authorizationCodeGrant(c.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type).toBe('bearer');
  });
});

describe('HTTP Basic client credentials', () => {
  it('answers malformed or wrong ones with 401 invalid_client', async () => {
    const c = await newCodeClient(app, { confidential: true, scopes: ['profile:read'] });
    const basic = (credentials: string) =>
      fetch(path('/oauth/token'), {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&refresh_token=no-such-token',
      });
    for (const credentials of ['%zz:secret', `${c.clientId}:wrong-secret`]) {
      const res = await basic(credentials);
      expectError({ status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }, 401, 'invalid_client');
    }
  });
});

describe('PKCE', () => {
  it('refuses an authorization without a code challenge or with the plain method, issuing no code', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const missing = await pkceParams(c.clientId);
    delete (missing as Record<string, string>).code_challenge;
    delete (missing as Record<string, string>).code_challenge_method;
    expectErrorRedirect(await authorize(missing), 'invalid_request', missing.state);

    const verifier = client.randomPKCECodeVerifier();
    const plain = await pkceParams(c.clientId, { code_challenge: verifier, code_challenge_method: 'plain' });
    expectErrorRedirect(await authorize(plain), 'invalid_request', plain.state);
  });
});

describe('redirect URIs', () => {
  it('never redirects to a redirect URI that is not registered, showing an error page instead', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    // Matched exactly, a loopback address's port included (oauth-loopback-redirect.test.ts).
    for (const redirectUri of ['https://attacker.example/callback', `${REDIRECT}/more`, 'http://localhost:8799/callback', 'http://127.0.0.1:9999/callback']) {
      expectErrorPage(await authorize(await pkceParams(c.clientId, { redirect_uri: redirectUri })));
      // Not even for errors that would otherwise go back to the app.
      expectErrorPage(await authorize(await pkceParams(c.clientId, { redirect_uri: redirectUri, scope: 'email:read' })));
      expectErrorPage(await authorize(await pkceParams(c.clientId, { redirect_uri: redirectUri, code_challenge_method: 'plain' })));
    }
  });
});
