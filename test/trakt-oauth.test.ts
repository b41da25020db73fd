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
