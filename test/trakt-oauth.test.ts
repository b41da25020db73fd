// Trakt's OAuth endpoints under /trakt, answered by the service's authorization server: the device flow
// (codes, every status of the poll), the authorization code flow from Trakt's authorize URL through the
// service's sign-in and consent pages, refresh rotation, revocation, Trakt's error answers, and the
// `trakt.tv` npm client doing all of it against the service. Exact wire shapes and statuses.
import { createRequire } from 'node:module';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactKey } from '../src/oauth/adapter.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { call, type Answer } from './helpers/http.ts';
import { approveDevice, authorizeInBrowser, makeApp, makeUser, signIn } from './helpers/oauth.ts';
import { trakt } from './helpers/trakt.ts';

/** The `trakt.tv` package (CommonJS, untyped): the parts these tests use. */
type TraktClient = {
  get_codes(): Promise<Record<string, unknown>>;
  poll_access(poll: Record<string, unknown>): Promise<Record<string, unknown>>;
  get_url(): string;
  exchange_code(code: string, state?: string): Promise<Record<string, unknown>>;
  refresh_token(): Promise<Record<string, unknown>>;
  export_token(): { access_token: string; refresh_token: string; expires: number };
  users: { settings(): Promise<Record<string, unknown>> };
};
const TraktTv = createRequire(import.meta.url)('trakt.tv') as new (settings: Record<string, unknown>) => TraktClient;

const REDIRECT = 'http://127.0.0.1:8799/callback';
const TOKEN_KEYS = ['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type'];
const ERROR_BODY = { error: expect.any(String), error_description: expect.any(String) };

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
/** A public app (no secret): the device flow's usual client. */
let tv: { client_id: string; allowed_scopes: string[] };
/** A confidential app: Trakt's web and server apps, with a secret. */
let web: { client_id: string; client_secret: string; allowed_scopes: string[] };

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'alice');
  tv = await makeApp(app, { scopes: ['profile:read', 'history:read'], redirectUri: REDIRECT });
  const created = await makeApp(app, { confidential: true, scopes: ['profile:read', 'history:read'], redirectUri: REDIRECT });
  web = { ...created, client_secret: created.client_secret! };
  browser = await launchBrowser();
  context = await browser.newContext();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.stop();
});

const post = (path: string, body: unknown): Promise<Answer> => call(app, `/trakt${path}`, { method: 'POST', body });
const deviceCode = (clientId = tv.client_id) => post('/oauth/device/code', { client_id: clientId });
const poll = (code: string, clientId = tv.client_id, secret = 'anything') => post('/oauth/device/token', { code, client_id: clientId, client_secret: secret });

function expectTokens(a: Answer, scope: string) {
  expect(a.status).toBe(200);
  expect(Object.keys(a.body).sort()).toEqual(TOKEN_KEYS);
  expect(a.body).toEqual({
    access_token: expect.any(String),
    token_type: 'bearer',
    expires_in: 3600,
    refresh_token: expect.any(String),
    scope,
    created_at: expect.any(Number),
  });
  const createdAt = a.body.created_at as number;
  expect(Number.isInteger(createdAt)).toBe(true);
  expect(Math.abs(createdAt - Date.now() / 1000)).toBeLessThan(60);
}

function expectError(a: Answer, status: number, error: string) {
  expect(a.status).toBe(status);
  expect(a.body).toEqual({ ...ERROR_BODY, error });
}

/** The user's settings through the facade with a token of `clientId`. */
const settings = (clientId: string, token: string) => trakt(app, { clientId, token }, 'GET', '/users/settings');

/** Makes the device code expire in the provider's storage (its `exp`), as ten minutes would. */
async function expireDeviceCode(code: string) {
  await app.db.orm.em
    .getConnection()
    .execute(`update oauth_artifact set payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 1)) where id = ?`, [artifactKey('DeviceCode', code)]);
}

/** The device page's consent, answered with Deny. */
async function denyDevice(verificationUriComplete: string) {
  const page = await context.newPage();
  await page.goto(verificationUriComplete);
  await page.getByRole('button', { name: 'Yes, it matches' }).click();
  const deny = page.getByRole('button', { name: 'Deny' });
  await page.getByRole('button', { name: 'Sign in' }).or(deny).waitFor();
  if (await page.getByRole('button', { name: 'Sign in' }).isVisible()) await signIn(page, 'alice');
  await deny.click();
  await page.waitForLoadState();
  await page.close();
}

const complete = (verificationUrl: string, userCode: string) => `${verificationUrl}?user_code=${encodeURIComponent(userCode)}`;

describe('POST /trakt/oauth/device/code', () => {
  it('answers Trakt\'s device code shape, with no trakt-api-key', async () => {
    const a = await deviceCode();
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_url']);
    expect(a.body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_url: `${app.url}/api/platform/v1/auth/device`,
      expires_in: 600,
      interval: 5,
    });
  });

  it('400 without client_id, 401 invalid_client for an app that does not exist', async () => {
    expectError(await post('/oauth/device/code', {}), 400, 'invalid_request');
    expectError(await deviceCode('app_nope'), 401, 'invalid_client');
  });

  it('401 invalid_client for a confidential app that sends no secret or a wrong one (the provider authenticates it here)', async () => {
    expectError(await deviceCode(web.client_id), 401, 'invalid_client');
    expectError(await post('/oauth/device/code', { client_id: web.client_id, client_secret: 'wrong' }), 401, 'invalid_client');
    expect((await post('/oauth/device/code', { client_id: web.client_id, client_secret: web.client_secret })).status).toBe(200);
  });

  it('412 for a body that is not JSON', async () => {
    const a = await call(app, '/trakt/oauth/device/code', { method: 'POST', body: `client_id=${tv.client_id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(a.status).toBe(412);
  });
});

describe('POST /trakt/oauth/device/token', () => {
  it('400 with no body while the user has not answered, then 429 slow_down with Retry-After for a poll too soon', async () => {
    const code = String((await deviceCode()).body.device_code);
    const pending = await call(app, '/trakt/oauth/device/token', { method: 'POST', body: { code, client_id: tv.client_id, client_secret: 'x' } });
    expect(pending.status).toBe(400);
    expect(pending.body).toEqual({});
    const early = await poll(code);
    expectError(early, 429, 'slow_down');
    expect(early.headers.get('retry-after')).toBe('10');
  });

  it('404 for a code that does not exist, or is another app\'s', async () => {
    expectError(await poll('no-such-code'), 404, 'invalid_grant');
    const other = String((await deviceCode((await makeApp(app)).client_id)).body.device_code);
    expectError(await poll(other), 404, 'invalid_grant');
  });

  it('410 for an expired code', async () => {
    const code = String((await deviceCode()).body.device_code);
    await expireDeviceCode(code);
    expectError(await poll(code), 410, 'expired_token');
  });

  it('418 for a code the user denied, then 409 for it used again', async () => {
    const a = await deviceCode();
    await denyDevice(complete(String(a.body.verification_url), String(a.body.user_code)));
    expectError(await poll(String(a.body.device_code)), 418, 'access_denied');
    expectError(await poll(String(a.body.device_code)), 409, 'invalid_grant');
  });

  it('200 with Trakt\'s tokens once the user approves; the token works on the facade; 409 for the code polled again', async () => {
    const a = await deviceCode();
    const code = String(a.body.device_code);
    await approveDevice(context, complete(String(a.body.verification_url), String(a.body.user_code)), 'alice');
    const tokens = await poll(code);
    expectTokens(tokens, tv.allowed_scopes.join(' '));
    const me = await settings(tv.client_id, String(tokens.body.access_token));
    expect(me.status).toBe(200);
    expect((me.body.user as { username: string }).username).toBe('alice');
    expectError(await poll(code), 409, 'invalid_grant');
  });

  it('401 invalid_client for a confidential app\'s wrong secret', async () => {
    const code = String((await post('/oauth/device/code', { client_id: web.client_id, client_secret: web.client_secret })).body.device_code);
    expectError(await poll(code, web.client_id, 'wrong-secret'), 401, 'invalid_client');
  });
});

/** A GET that does not follow redirects. */
async function location(url: string): Promise<{ status: number; location: URL }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: new URL(res.headers.get('location')!, url) };
}

const traktAuthorize = (clientId: string, state = 'st4te') =>
  `${app.url}/trakt/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=${state}`;

describe('GET /trakt/oauth/authorize', () => {
  it('302 to the service\'s authorization endpoint with Trakt\'s parameters and the facade\'s marker', async () => {
    const a = await location(traktAuthorize(web.client_id));
    expect(a.status).toBe(302);
    expect(`${a.location.origin}${a.location.pathname}`).toBe(`${app.url}/api/platform/v1/oauth/authorize`);
    expect(Object.fromEntries(a.location.searchParams)).toEqual({ response_type: 'code', client_id: web.client_id, redirect_uri: REDIRECT, state: 'st4te', via: 'trakt' });
  });

  it('lets a confidential app in without PKCE (to the sign-in and consent page), never a public one, and nobody without the marker', async () => {
    const confidential = await location((await location(traktAuthorize(web.client_id))).location.toString());
    expect(confidential.status).toBe(303);
    expect(confidential.location.pathname).toMatch(/^\/oauth\/interaction\//);

    const pub = await location((await location(traktAuthorize(tv.client_id))).location.toString());
    expect(`${pub.location.origin}${pub.location.pathname}`).toBe(REDIRECT);
    expect(pub.location.searchParams.get('error')).toBe('invalid_request');
    expect(pub.location.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(pub.location.searchParams.get('state')).toBe('st4te');

    const direct = new URL((await location(traktAuthorize(web.client_id))).location);
    direct.searchParams.delete('via');
    const platform = await location(direct.toString());
    expect(platform.location.searchParams.get('error')).toBe('invalid_request');
    expect(platform.location.searchParams.get('error_description')).toMatch(/PKCE/);
  });
});

describe('POST /trakt/oauth/token and /trakt/oauth/revoke with the trakt.tv client', () => {
  it('signs in through the authorize URL, exchanges the code, refreshes (rotating), and a revoked token is refused', async () => {
    const client = new TraktTv({ client_id: web.client_id, client_secret: web.client_secret, redirect_uri: REDIRECT, api_url: `${app.url}/trakt` });
    const callback = await authorizeInBrowser(context, client.get_url(), { redirectUri: REDIRECT, username: 'alice' });
    const code = callback.searchParams.get('code')!;
    const tokens = await client.exchange_code(code, callback.searchParams.get('state')!);
    expect(Object.keys(tokens).sort()).toEqual(TOKEN_KEYS);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: web.allowed_scopes.join(' ') });
    expect((await client.users.settings()).user).toMatchObject({ username: 'alice' });

    const first = client.export_token();
    const refreshed = await client.refresh_token();
    expect(Object.keys(refreshed).sort()).toEqual(TOKEN_KEYS);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.access_token).not.toBe(first.access_token);
    const now = String(refreshed.access_token);
    expect((await settings(web.client_id, now)).status).toBe(200);

    const revoked = await call(app, '/trakt/oauth/revoke', { method: 'POST', body: { token: now, client_id: web.client_id, client_secret: web.client_secret } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({});
    const refused = await settings(web.client_id, now);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ ...ERROR_BODY, error: 'invalid_token' });

    // The code is good once (its reuse also ends the grant's tokens, as the provider treats any reuse).
    const again = await post('/oauth/token', { code, client_id: web.client_id, client_secret: web.client_secret, redirect_uri: REDIRECT, grant_type: 'authorization_code' });
    expectError(again, 400, 'invalid_grant');
  });

  it('answers a refresh with a used refresh token 400 invalid_grant (the rotation)', async () => {
    const a = await deviceCode();
    await approveDevice(context, complete(String(a.body.verification_url), String(a.body.user_code)), 'alice');
    const tokens = (await poll(String(a.body.device_code))).body;
    const refresh = { refresh_token: tokens.refresh_token, client_id: tv.client_id, client_secret: 'unused', redirect_uri: REDIRECT, grant_type: 'refresh_token' };
    // Sent with the old access token as a bearer, as some clients do when it has expired: no credential here.
    const rotated = await call(app, '/trakt/oauth/token', { method: 'POST', body: refresh, token: 'an-expired-access-token' });
    expectTokens(rotated, tv.allowed_scopes.join(' '));
    expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token);
    expectError(await post('/oauth/token', refresh), 400, 'invalid_grant');
  });

  it('runs the device flow of the trakt.tv client (get_codes, poll_access)', async () => {
    const client = new TraktTv({ client_id: tv.client_id, client_secret: 'a public app has none', api_url: `${app.url}/trakt` });
    const codes = await client.get_codes();
    await approveDevice(context, complete(String(codes.verification_url), String(codes.user_code)), 'alice');
    const tokens = await client.poll_access(codes);
    expect(Object.keys(tokens).sort()).toEqual(TOKEN_KEYS);
    expect((await client.users.settings()).user).toMatchObject({ username: 'alice' });
  });
});

describe('Trakt\'s OAuth error answers', () => {
  const exchange = (body: Record<string, unknown>) =>
    post('/oauth/token', { code: 'no-such-code', client_id: web.client_id, client_secret: web.client_secret, redirect_uri: REDIRECT, grant_type: 'authorization_code', ...body });

  it('400 invalid_grant for a code that does not exist, 401 invalid_client for a wrong secret or an unknown app', async () => {
    expectError(await exchange({}), 400, 'invalid_grant');
    expectError(await exchange({ client_secret: 'wrong' }), 401, 'invalid_client');
    expectError(await exchange({ client_id: 'app_nope' }), 401, 'invalid_client');
  });

  it('400 unsupported_grant_type for another grant type, 400 invalid_request for a missing or malformed field', async () => {
    expectError(await exchange({ grant_type: 'password' }), 400, 'unsupported_grant_type');
    expectError(await exchange({ grant_type: undefined }), 400, 'unsupported_grant_type');
    expectError(await exchange({ client_id: undefined }), 400, 'invalid_request');
    expectError(await exchange({ code: 42 }), 400, 'invalid_request');
    expectError(await post('/oauth/token', { client_id: web.client_id, client_secret: web.client_secret, grant_type: 'refresh_token' }), 400, 'invalid_request');
  });

  it('revoke: 200 for a token it does not know (RFC 7009), 401 for a wrong secret, 400 without the token', async () => {
    const revoke = (body: Record<string, unknown>) => call(app, '/trakt/oauth/revoke', { method: 'POST', body: { token: 'no-such-token', client_id: web.client_id, client_secret: web.client_secret, ...body } });
    const unknown = await revoke({});
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({});
    expectError(await revoke({ client_secret: 'wrong' }), 401, 'invalid_client');
    expectError(await revoke({ token: undefined }), 400, 'invalid_request');
  });
});

describe('rate limits: the platform\'s buckets', () => {
  let limited: TestApp;
  let clientId: string;
  beforeAll(async () => {
    limited = await startTestApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
    clientId = (await makeApp(limited)).client_id;
  });
  afterAll(() => limited?.stop());

  const from = (address: string, path: string, body: unknown) =>
    call(limited, path, { method: 'POST', body, headers: { 'x-forwarded-for': address } });

  it('counts Trakt\'s device code requests in the device-code bucket of /auth/device/code (10 an hour per address), both ways', async () => {
    for (let i = 0; i < 10; i++) expect((await from('198.18.0.1', '/trakt/oauth/device/code', { client_id: clientId })).status, `request ${i + 1}`).toBe(200);
    const platform = await from('198.18.0.1', '/api/platform/v1/auth/device/code', { client_id: clientId });
    expect(platform.status).toBe(429);
    expect(platform.body.error).toBe('rate_limited');

    for (let i = 0; i < 10; i++) expect((await from('198.18.0.2', '/api/platform/v1/auth/device/code', { client_id: clientId })).status, `request ${i + 1}`).toBe(200);
    const refused = await from('198.18.0.2', '/trakt/oauth/device/code', { client_id: clientId });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ ...ERROR_BODY, error: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.headers.get('x-ratelimit')!)).toMatchObject({ name: 'device-code', limit: 10, remaining: 0 });
  });

  it('counts Trakt\'s refreshes in the refresh bucket of /auth/refresh (20 an hour per address)', async () => {
    const refresh = { refresh_token: 'no-such-token', client_id: clientId, grant_type: 'refresh_token' };
    for (let i = 0; i < 20; i++) expect((await from('198.18.0.3', '/trakt/oauth/token', refresh)).status, `request ${i + 1}`).toBe(400);
    const platform = await from('198.18.0.3', '/api/platform/v1/auth/refresh', { refresh_token: 'no-such-token', client_id: clientId });
    expect(platform.status).toBe(429);
  });
});
