// Request bodies of the OAuth endpoints over raw HTTP: JSON and form both work on /oauth/token,
// /auth/device/code, /auth/device/token and /auth/refresh; a body of exactly 64 KiB reaches the
// endpoint (which answers for the fields in it), one byte more is 413, and a body that does not arrive
// within 10 seconds is 408. A device flow approved once in Chromium supplies real tokens.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { expectError } from './helpers/envelope.ts';
import { rawRequest, type RawResponse } from './helpers/http.ts';
import { approveDevice, makeApp, makeUser, postForm, postJson } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let clientId: string;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'alice');
  clientId = (await makeApp(app, { scopes: ['profile:read', 'history:read'] })).client_id;
  browser = await launchBrowser();
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const BASE = '/api/platform/v1';
const url = (p: string) => `${app.url}${BASE}${p}`;
const TOKEN_KEYS = ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'scope', 'token_type'];

type Kind = 'json' | 'form';
const TYPE: Record<Kind, string> = { json: 'application/json', form: 'application/x-www-form-urlencoded' };

/** The fields plus a `pad` field filling the body to exactly `size` bytes. */
function bodyOfSize(kind: Kind, fields: Record<string, string>, size: number): Buffer {
  const encode = (pad: string) => (kind === 'json' ? JSON.stringify({ ...fields, pad }) : new URLSearchParams({ ...fields, pad }).toString());
  const body = Buffer.from(encode('x'.repeat(size - Buffer.byteLength(encode('')))));
  expect(body.length).toBe(size);
  return body;
}

function post(path: string, kind: Kind, body: Buffer): Promise<RawResponse> {
  return rawRequest(app.url, { method: 'POST', path: `${BASE}${path}`, headers: { 'content-type': TYPE[kind], 'content-length': body.length }, body });
}

/** A raw answer in the shape expectError reads. */
function answer(res: RawResponse) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
  return { status: res.status, body: res.json() as Record<string, unknown>, headers };
}

/** Each endpoint with fields it reads and the OAuth answer those fields get: proof the body was parsed. */
const ENDPOINTS = () =>
  [
    ['/oauth/token', { client_id: clientId, grant_type: 'refresh_token', refresh_token: 'no-such-token' }, 'invalid_grant'],
    ['/auth/device/code', { client_id: clientId, scope: 'email:read' }, 'invalid_scope'],
    ['/auth/device/token', { client_id: clientId, device_code: 'no-such-device-code' }, 'expired'],
    ['/auth/refresh', { client_id: clientId, refresh_token: 'no-such-token' }, 'invalid_grant'],
  ] as const;

describe('JSON and form bodies', () => {
  it('are both accepted on /auth/device/code, /auth/device/token, /auth/refresh and /oauth/token', async () => {
    const byForm = await postForm(url('/auth/device/code'), { client_id: clientId, scope: 'profile:read' });
    const byJson = await postJson(url('/auth/device/code'), { client_id: clientId, scope: 'history:read' });
    expect([byForm.status, byForm.body.scope, byJson.status, byJson.body.scope]).toEqual([200, 'profile:read', 200, 'history:read']);

    expectError(await postForm(url('/auth/device/token'), { client_id: clientId, device_code: String(byForm.body.device_code) }), 400, 'authorization_pending');
    expectError(await postJson(url('/auth/device/token'), { client_id: clientId, device_code: byJson.body.device_code }), 400, 'authorization_pending');

    await approveDevice(context, String(byForm.body.verification_uri_complete), 'alice');
    const device = await postForm(url('/auth/device/token'), { client_id: clientId, device_code: String(byForm.body.device_code) });
    expect(device.status).toBe(200);
    expect(Object.keys(device.body).sort()).toEqual([...TOKEN_KEYS, 'username'].sort());
    expect(device.body).toMatchObject({ token_type: 'bearer', scope: 'profile:read', username: 'alice' });

    // Each refresh rotates the token the previous one gave.
    let refreshToken = String(device.body.refresh_token);
    const refreshes: [string, Kind, Record<string, string>][] = [
      ['/auth/refresh', 'json', {}],
      ['/auth/refresh', 'form', {}],
      ['/oauth/token', 'json', { grant_type: 'refresh_token' }],
      ['/oauth/token', 'form', { grant_type: 'refresh_token' }],
    ];
    for (const [path, kind, extra] of refreshes) {
      const fields = { client_id: clientId, refresh_token: refreshToken, ...extra };
      const res = kind === 'json' ? await postJson(url(path), fields) : await postForm(url(path), fields);
      expect({ path, kind, status: res.status }).toEqual({ path, kind, status: 200 });
      expect(Object.keys(res.body).sort()).toEqual(TOKEN_KEYS);
      expect(res.body.refresh_token).not.toBe(refreshToken);
      refreshToken = String(res.body.refresh_token);
    }
  });
});

describe('body limits', () => {
  it('accepts a body of exactly 65,536 bytes, JSON or form, and answers the fields in it', async () => {
    for (const [path, fields, code] of ENDPOINTS()) {
      for (const kind of ['json', 'form'] as const) {
        const res = answer(await post(path, kind, bodyOfSize(kind, fields, 65_536)));
        expect({ path, kind, error: res.body.error }).toEqual({ path, kind, error: code });
        expectError(res, 400, code);
      }
    }
  });

  it('answers a body of 65,537 bytes with 413 payload_too_large', async () => {
    for (const [path, fields] of ENDPOINTS()) {
      for (const kind of ['json', 'form'] as const) {
        const res = answer(await post(path, kind, bodyOfSize(kind, fields, 65_537)));
        expect({ path, kind, status: res.status }).toEqual({ path, kind, status: 413 });
        expectError(res, 413, 'payload_too_large');
      }
    }
  });

  it('answers a body not complete within 10 seconds with 408 request_timeout', async () => {
    const started = Date.now();
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: `${BASE}/oauth/token`,
      headers: { 'content-type': TYPE.form, 'content-length': 200 },
      sendBody: (req) => req.write(`grant_type=refresh_token&client_id=${clientId}`), // and never the rest
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
    expectError(answer(res), 408, 'request_timeout');
    expect(res.headers.connection).toBe('close');
  }, 20_000);
});
