// The first-party web app's sign-in as packages/web runs it: the service registers the app itself at
// start; openid-client (as the page's code would) builds the authorization requests with PKCE S256,
// exchanges the codes and refreshes; the browser's session comes from /account (cookies carried by hand,
// or real Chromium for the sign-in page and the page's own `fetch` of the sign-out). No consent page for
// this app, silent `prompt=none` sign-ins, and the bearer-authenticated sign-out that ends everything.
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_PARTY_CLIENT_ID, firstPartyRedirectUri, registerFirstPartyApp } from '../src/core/apps/first-party.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { findApp, type App } from '../src/core/apps/service.ts';
import { db } from '../src/core/db/query-builder.ts';
import { limitById } from '../src/core/limits/table.ts';
import { artifactKey } from '../src/oauth/adapter.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { codeFlowTokens, discover, REDIRECT } from './helpers/code-flow.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { call, type Answer } from './helpers/http.ts';
import { getMe, makeApp, makeUser, PASSWORD, postAccountSignIn, postForm, postJson, sessionCookie, signIn } from './helpers/oauth.ts';

const EARLIER_BASE_URL = 'https://tracker.example';
const ALL_SCOPES = SCOPES.join(' ');
const TOKEN = '/api/platform/v1/oauth/token';

let database: TestDatabase;
let earlier: App | null;
let app: TestApp;
let browser: Browser;
let web: client.Configuration;
let redirectUri: string;

beforeAll(async () => {
  database = await freshDatabase();
  // A start with another BASE_URL first: the next start must move the redirect URI.
  const first = await startTestApp({ BASE_URL: EARLIER_BASE_URL }, { database });
  earlier = await findApp(first.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID);
  await first.stop();
  // TRUST_PROXY: the rate-limit test speaks from an address of its own (X-Forwarded-For).
  app = await startTestApp({ TRUST_PROXY: 'loopback' }, { database });
  redirectUri = firstPartyRedirectUri(app.url);
  web = await discover(app, FIRST_PARTY_CLIENT_ID);
  for (const name of ['webber', 'silent', 'refresher', 'wider', 'consenter', 'revoker', 'leaver', 'nocookie', 'guarded', 'stranger', 'former', 'developer']) await makeUser(app, name);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await database?.cleanup();
});

/** An authorization request of the web app: PKCE S256 and state, the scope left out (all 16) unless given. */
async function webAuthorization(params: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(web, {
    redirect_uri: redirectUri,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  return { url, verifier, state };
}

/** A browser session started by signing in at /account: its Cookie header. */
async function accountCookie(username: string): Promise<string> {
  const res = await postAccountSignIn(app, username, PASSWORD);
  expect(res.status).toBe(303);
  return sessionCookie(res.headers);
}

/** What the browser gets for an authorization URL, sending `cookie`: the status and where it is sent. */
async function authorize(url: URL | string, cookie?: string): Promise<{ status: number; location: URL | undefined; res: Response }> {
  const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const location = res.headers.get('location');
  return { status: res.status, location: location === null ? undefined : new URL(location, app.url), res };
}

/** The redirect to the web app's callback, asserted: the exact URI, the request's state, the issuer. */
function callback(a: { status: number; location: URL | undefined }, state: string): URL {
  expect(a.status).toBe(302);
  const at = a.location!;
  expect(`${at.origin}${at.pathname}`).toBe(redirectUri);
  expect(at.searchParams.get('state')).toBe(state);
  expect(at.searchParams.get('iss')).toBe(app.url);
  return at;
}

/** Tokens of the web app for the browser session `cookie`: the code it gets with no page, exchanged. */
async function webTokens(cookie: string, params: Record<string, string> = {}) {
  const req = await webAuthorization(params);
  const at = callback(await authorize(req.url, cookie), req.state);
  const tokens = await client.authorizationCodeGrant(web, at, { pkceCodeVerifier: req.verifier, expectedState: req.state });
  return tokens as client.TokenEndpointResponse & { refresh_token: string; scope: string };
}

/** When a refresh token's stored row expires (ms since the epoch), read where the provider keeps it (consumed ones too). */
async function refreshTokenExpiry(token: string): Promise<number> {
  const row = await db(app.db.orm.em.fork()).selectFrom('oauth_artifact').select('expires_at').where('id', '=', artifactKey('RefreshToken', token)).executeTakeFirstOrThrow();
  return row.expires_at!.getTime();
}

/** A refresh grant of the web app by hand (form body, client_id, no secret): the exact answer. */
const refreshByHand = (refreshToken: string) => postForm(`${app.url}${TOKEN}`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: FIRST_PARTY_CLIENT_ID });

/** The app's sign-out as its page's fetch sends it: POST, no body, these headers. */
const appSignOut = (headers: Record<string, string>): Promise<Answer> => call(app, '/account/sign-out', { method: 'POST', headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The signed-in user's account page for `cookie`, or the sign-in form when the session is gone. */
const accountPage = async (cookie: string) => (await fetch(`${app.url}/account/connected-apps`, { headers: { cookie } })).text();
const csrfOf = async (cookie: string) => /name="csrf" value="([^"]+)"/.exec(await accountPage(cookie))![1]!;

async function expectDead(tokens: { access_token: string; refresh_token: string }) {
  expectError(await getMe(app, tokens.access_token), 401, 'invalid_token');
  const refreshed = await refreshByHand(tokens.refresh_token);
  expectError(refreshed, 400, 'invalid_grant');
}

describe('registration at start', () => {
  it('is an official public app allowed all 16 scopes, its one redirect URI BASE_URL/auth/callback, owned by nobody', async () => {
    const stored = await findApp(app.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID);
    expect(stored).toMatchObject({
      client_id: 'media-tracking-web',
      name: 'Media Tracking (web)',
      redirect_uris: [`${app.url}/auth/callback`],
      allowed_scopes: [...SCOPES],
      confidential: false,
      client_secret_hash: null,
      official: true,
      active: true,
      owner_id: null,
    });
    expect(stored!.allowed_scopes).toHaveLength(16);
  });

  it('follows BASE_URL from one start to the next, and a start that changes nothing writes nothing', async () => {
    expect(earlier).toMatchObject({ redirect_uris: [`${EARLIER_BASE_URL}/auth/callback`], official: true });
    const stored = (await findApp(app.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID))!;
    expect(stored.created_at).toEqual(earlier!.created_at);
    expect(stored.updated_at.getTime()).toBeGreaterThan(earlier!.updated_at.getTime());
    expect(await registerFirstPartyApp(app.db.orm.em.fork(), app.url)).toBe(false);
    expect(await findApp(app.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID)).toEqual(stored);
  });

  it('is announced to openid-client through the metadata like any app, and refuses the device flow', async () => {
    expect(web.serverMetadata().supportsPKCE()).toBe(true);
    expect(web.serverMetadata().authorization_endpoint).toBe(`${app.url}/api/platform/v1/oauth/authorize`);
    expect(web.serverMetadata().token_endpoint).toBe(`${app.url}${TOKEN}`);
    // A device code confirmed for it would skip consent like its sign-in does: it has no device flow.
    const device = await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: FIRST_PARTY_CLIENT_ID });
    expectError(device, 400, 'invalid_request');
    expect(device.body.message).toBe('urn:ietf:params:oauth:grant-type:device_code is not allowed for this client');
  });
});

describe('sign-in without a consent page', () => {
  it('a browser signed in at /account gets its code with no page at all; the tokens act as the official web app', async () => {
    const cookie = await accountCookie('webber');
    const req = await webAuthorization();
    const at = callback(await authorize(req.url, cookie), req.state);
    expect(at.searchParams.get('scope')).toBe(ALL_SCOPES);
    const tokens = await client.authorizationCodeGrant(web, at, { pkceCodeVerifier: req.verifier, expectedState: req.state });
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: ALL_SCOPES });
    expect(typeof tokens.refresh_token).toBe('string');
    expect(tokens.refresh_expires_in).toBeGreaterThan(0);
    const me = await getMe(app, tokens.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'webber', app: { clientId: FIRST_PARTY_CLIENT_ID, name: 'Media Tracking (web)', official: true } });
    expect(me.body.scopes).toEqual([...SCOPES].sort());
    // Official: the first-party-only procedures answer it.
    expect((await call(app, '/api/platform/v1/me/connected-apps', { token: tokens.access_token })).status).toBe(200);
  });

  it('prompt=none: with the session a code, without one login_required back at the redirect URI', async () => {
    const cookie = await accountCookie('silent');
    const withSession = await webAuthorization({ prompt: 'none' });
    const at = callback(await authorize(withSession.url, cookie), withSession.state);
    expect(at.searchParams.get('code')).toBeTruthy();
    const tokens = await client.authorizationCodeGrant(web, at, { pkceCodeVerifier: withSession.verifier, expectedState: withSession.state });
    expect((await getMe(app, tokens.access_token)).body).toMatchObject({ username: 'silent' });

    const without = await webAuthorization({ prompt: 'none' });
    const back = callback(await authorize(without.url), without.state);
    expect(back.searchParams.get('error')).toBe('login_required');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('without a session the sign-in page is the only page (Chromium), and the next silent sign-in shows none', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const shown = pagesShown(page);
      const req = await webAuthorization();
      await page.goto(req.url.toString());
      const back = callbackUrl(page);
      await signIn(page, 'former');
      const tokens = await client.authorizationCodeGrant(web, await back, { pkceCodeVerifier: req.verifier, expectedState: req.state });
      expect(shown.splice(0)).toEqual([expect.stringMatching(/^\/oauth\/interaction\/[^/]+$/)]);
      expect((await getMe(app, tokens.access_token)).body).toMatchObject({ username: 'former' });
      // The page reloaded: no token kept, a silent authorization against the session.
      const silent = await webAuthorization({ prompt: 'none' });
      const silentBack = callbackUrl(page);
      await page.goto(silent.url.toString());
      expect((await silentBack).searchParams.get('code')).toBeTruthy();
      expect(shown.splice(0)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refreshes as a public client: a new refresh token each time, its chain ending a day after the sign-in', async () => {
    const tokens = await webTokens(await accountCookie('refresher'));
    // A day (the browser session's lifetime), where other apps get 30 days.
    expect(tokens.refresh_expires_in).toBeLessThanOrEqual(86_400);
    expect(tokens.refresh_expires_in).toBeGreaterThan(86_400 - 60);
    const refreshed = await client.refreshTokenGrant(web, tokens.refresh_token);
    expect(refreshed).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: ALL_SCOPES });
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await getMe(app, refreshed.access_token)).status).toBe(200);
    const again = await refreshByHand(refreshed.refresh_token!);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ token_type: 'bearer', scope: ALL_SCOPES, refresh_token: expect.any(String) });
    // Rotation does not extend the chain: the stored token ends when the first one did, to the second.
    const stored = await refreshTokenExpiry(again.body.refresh_token as string);
    const first = await refreshTokenExpiry(tokens.refresh_token);
    expect(Math.abs(stored - first)).toBeLessThanOrEqual(1_000);
    expect(again.body.refresh_expires_in as number).toBeLessThanOrEqual(tokens.refresh_expires_in as number);
    // Another app's refresh tokens still live 30 days.
    const context = await browser.newContext();
    try {
      const other = await codeFlowTokens(app, context, { username: 'refresher', scopes: ['profile:read'] });
      expect(other.tokens.refresh_expires_in).toBe(30 * 86_400);
    } finally {
      await context.close();
    }
  });

  it('a later request for more scopes is granted without a page too', async () => {
    const cookie = await accountCookie('wider');
    expect((await webTokens(cookie, { scope: 'profile:read' })).scope).toBe('profile:read');
    expect((await webTokens(cookie, { scope: 'profile:read history:write' })).scope).toBe('profile:read history:write');
  });

  it('other apps, official ones too, still get the consent page, and prompt=none gets them no code', async () => {
    const cookie = await accountCookie('consenter');
    // A web app (https redirect URI) and a native one (loopback): the provider's two kinds.
    const official = await makeApp(app, { name: 'Another official app', official: true, redirectUri: 'https://official.example/callback' });
    const thirdParty = await makeApp(app, { name: 'Third party', redirectUri: REDIRECT });
    for (const [c, redirect, silentError] of [
      [official, 'https://official.example/callback', 'consent_required'],
      [thirdParty, REDIRECT, 'interaction_required'],
    ] as const) {
      const config = await discover(app, c.client_id);
      const request = (params: Record<string, string> = {}) =>
        client.buildAuthorizationUrl(config, { redirect_uri: redirect, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's', ...params });
      const a = await authorize(request(), cookie);
      expect(a.status, c.client_id).toBe(303);
      expect(a.location!.pathname).toMatch(/^\/oauth\/interaction\/[^/]+$/);
      // The interaction cookie the provider set, with the session: the consent page.
      const cookies = [cookie, ...a.res.headers.getSetCookie().map((s) => s.split(';')[0]!)].join('; ');
      const page = await fetch(a.location!, { headers: { cookie: cookies } });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<button[^>]*value="approve"/);
      const back = await authorize(request({ prompt: 'none' }), cookie);
      expect(`${back.location!.origin}${back.location!.pathname}`).toBe(redirect);
      expect(back.location!.searchParams.get('error')).toBe(silentError);
      expect(back.location!.searchParams.has('code')).toBe(false);
    }
  });

  it('a redirect URI other than the registered one exactly is refused with an error page, never redirected to', async () => {
    const cookie = await accountCookie('guarded');
    for (const wrong of [`${redirectUri}/`, `${redirectUri}?next=/`, `${app.url}/auth/callbacks`, `${EARLIER_BASE_URL}/auth/callback`, REDIRECT]) {
      const req = await webAuthorization({ redirect_uri: wrong });
      const a = await authorize(req.url, cookie);
      expect({ wrong, status: a.status, location: a.location }).toEqual({ wrong, status: 400, location: undefined });
      expect(await a.res.text()).toContain('redirect_uri did not match');
    }
  });
});

describe('connected apps and developer apps', () => {
  it('is listed among connected apps, and revoking it there ends its tokens; the next sign-in needs no page again', async () => {
    const cookie = await accountCookie('revoker');
    const tokens = await webTokens(cookie);
    expect(await accountPage(cookie)).toContain('Media Tracking (web)');
    const revoke = await fetch(`${app.url}/account/connected-apps/${FIRST_PARTY_CLIENT_ID}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf: await csrfOf(cookie) }),
    });
    expect(revoke.status).toBe(303);
    await expectDead(tokens);
    expect(await accountPage(cookie)).not.toContain('Media Tracking (web)');
    const again = await webTokens(cookie);
    expect((await getMe(app, again.access_token)).status).toBe(200);
  });

  it('is no developer app: not listed, and its page and every action are 404 for a signed-in user, the app untouched', async () => {
    const before = await findApp(app.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID);
    const cookie = await accountCookie('developer');
    const csrf = await csrfOf(cookie);
    const list = await fetch(`${app.url}/account/apps`, { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain(FIRST_PARTY_CLIENT_ID);
    for (const path of ['', '/delete']) {
      expect((await fetch(`${app.url}/account/apps/${FIRST_PARTY_CLIENT_ID}${path}`, { headers: { cookie } })).status, `GET ${path}`).toBe(404);
    }
    for (const action of ['delete', 'deactivate', 'activate', 'rotate-secret']) {
      const res = await fetch(`${app.url}/account/apps/${FIRST_PARTY_CLIENT_ID}/${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ csrf }),
      });
      expect(res.status, action).toBe(404);
    }
    expect(await findApp(app.db.orm.em.fork(), FIRST_PARTY_CLIENT_ID)).toEqual(before);
  });
});

describe('the web app signs out with its bearer token', () => {
  it("ends its grant, its tokens and the browser's session: 204, then login_required and invalid tokens", async () => {
    const cookie = await accountCookie('leaver');
    const older = await webTokens(cookie);
    const tokens = await webTokens(cookie);
    const out = await fetch(`${app.url}/account/sign-out`, { method: 'POST', headers: { ...bearer(tokens.access_token), cookie, origin: new URL(app.url).origin } });
    expect(out.status).toBe(204);
    expect(await out.text()).toBe('');
    expect(out.headers.get('cache-control')).toBe('no-store');
    expect(out.headers.getSetCookie().some((c) => /^_session=;.*expires=Thu, 01 Jan 1970/.test(c))).toBe(true);
    await expectDead(tokens);
    await expectDead(older);
    // The old cookie sent again: no session for a silent sign-in, nor for the account pages.
    const silent = await webAuthorization({ prompt: 'none' });
    expect(callback(await authorize(silent.url, cookie), silent.state).searchParams.get('error')).toBe('login_required');
    expect(await accountPage(cookie)).toContain('name="nonce"');
  });

  it('from the page itself in Chromium: fetch with the token, same origin; the cookie goes and the silent sign-in answers login_required', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const req = await webAuthorization();
      await page.goto(req.url.toString());
      const back = callbackUrl(page);
      await signIn(page, 'webber');
      const tokens = await client.authorizationCodeGrant(web, await back, { pkceCodeVerifier: req.verifier, expectedState: req.state });
      expect((await context.cookies()).map((c) => c.name)).toContain('_session');
      const status = await page.evaluate(
        async (token) => (await fetch('/account/sign-out', { method: 'POST', credentials: 'same-origin', headers: { Authorization: `Bearer ${token}` } })).status,
        tokens.access_token,
      );
      expect(status).toBe(204);
      expect((await context.cookies()).map((c) => c.name)).not.toContain('_session');
      await expectDead(tokens as typeof tokens & { refresh_token: string });
      const silent = await webAuthorization({ prompt: 'none' });
      const silentBack = callbackUrl(page);
      await page.goto(silent.url.toString());
      expect((await silentBack).searchParams.get('error')).toBe('login_required');
    } finally {
      await context.close();
    }
  });

  it('without the browser cookie it still ends every token of the web app for the user', async () => {
    const cookie = await accountCookie('nocookie');
    const tokens = await webTokens(cookie);
    expect((await appSignOut(bearer(tokens.access_token))).status).toBe(204);
    await expectDead(tokens);
  });

  it('refuses another origin (403 first_party_only) and ends nothing', async () => {
    const cookie = await accountCookie('guarded');
    const tokens = await webTokens(cookie);
    for (const origin of ['https://evil.example', 'null', EARLIER_BASE_URL]) {
      expectError(await appSignOut({ ...bearer(tokens.access_token), cookie, origin }), 403, 'first_party_only');
    }
    expect((await getMe(app, tokens.access_token)).status).toBe(200);
    expect(await accountPage(cookie)).toContain('guarded');
  });

  it('without a token, or with a dead one: 401 invalid_token; with another app token: 403 first_party_only, that token untouched', async () => {
    const cookie = await accountCookie('stranger');
    for (const headers of [{}, bearer('not-a-token'), { authorization: 'Basic dXNlcjpwYXNz' }, { 'content-type': 'application/json' }] as Record<string, string>[]) {
      const res = await appSignOut({ ...headers, cookie });
      expectError(res, 401, 'invalid_token');
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    const context = await browser.newContext();
    try {
      const other = await codeFlowTokens(app, context, { username: 'stranger', scopes: ['profile:read'] });
      expectError(await appSignOut({ ...bearer(other.tokens.access_token), cookie }), 403, 'first_party_only');
      expect((await getMe(app, other.tokens.access_token)).status).toBe(200);
    } finally {
      await context.close();
    }
    // None of those ended the session.
    expect(await accountPage(cookie)).toContain('stranger');
  });

  it('the account pages\' form sign-out is unchanged: the CSRF field, 303 to /account, the session ended', async () => {
    const cookie = await accountCookie('consenter');
    const out = await fetch(`${app.url}/account/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf: await csrfOf(cookie) }),
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/account');
    expect(await accountPage(cookie)).toContain('name="nonce"');
  });

  it('counts in the account-forms bucket: 429 rate_limited in the envelope at exactly the limit plus one', async () => {
    const { points } = limitById('account-forms');
    const address = { 'x-forwarded-for': '198.18.36.1' };
    for (let i = 0; i < points; i++) expect((await appSignOut({ ...bearer('dead-token'), ...address })).status, `sign-out ${i + 1}`).toBe(401);
    const refused = await appSignOut({ ...bearer('dead-token'), ...address });
    expectError(refused, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

/** The paths of the service's pages `page` shows from now on (navigations answered 200: redirects and the app's callback left out). */
/**
 * The address the authorization server sends the browser back to, read from the request itself: a
 * route does not see the requests of a redirect chain, so the web app served there loads, and once it
 * runs it rewrites its own address.
 */
function callbackUrl(page: Page): Promise<URL> {
  return page.waitForRequest((r) => r.url().startsWith(`${redirectUri}?`), { timeout: 60_000 }).then((r) => new URL(r.url()));
}

function pagesShown(page: Page): string[] {
  const shown: string[] = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (!res.request().isNavigationRequest() || res.request().frame() !== page.mainFrame() || res.status() !== 200) return;
    if (url.origin === app.url && url.pathname !== '/auth/callback') shown.push(url.pathname);
  });
  return shown;
}
