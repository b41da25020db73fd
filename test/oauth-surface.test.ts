// What the authorization server answers outside its contract: pushed authorization requests are off
// (absent from the metadata, 404 `not_found` in the envelope), so are the signing keys; a method a
// provider path does not have (TRACE, PATCH, PUT, DELETE) is 404 `not_found` in the envelope; the
// device confirmation form posted without a session or with a bad xsrf token, and the resume step of a
// device confirmation without a session, are 400/403 HTML pages, never a bare 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { REDIRECT } from './helpers/code-flow.ts';
import { expectError } from './helpers/envelope.ts';
import { rawRequest } from './helpers/http.ts';
import { makeApp } from './helpers/oauth.ts';

let app: TestApp;
let clientId: string;
beforeAll(async () => {
  app = await startTestApp();
  clientId = (await makeApp(app, { redirectUri: REDIRECT })).client_id;
});
afterAll(() => app?.stop());

const DEVICE = '/api/platform/v1/auth/device';

/** A request by any method (fetch refuses TRACE), answered in the shape expectError reads. */
async function call(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const res = await rawRequest(app.url, { method, path, headers, body });
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
  const json = res.headers['content-type']?.startsWith('application/json') ? (JSON.parse(res.body) as Record<string, unknown>) : {};
  return { status: res.status, headers: h, body: json, text: res.body, setCookie: res.headers['set-cookie'] ?? [] };
}

function expectHtmlRefusal(res: Awaited<ReturnType<typeof call>>) {
  expect([400, 403]).toContain(res.status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.text).toMatch(/<html/);
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('turned-off endpoints', () => {
  it('has no pushed authorization requests: not in the metadata, 404 not_found at /oauth/par', async () => {
    const metadata = (await call('GET', '/.well-known/oauth-authorization-server')).body;
    expect(metadata).not.toHaveProperty('pushed_authorization_request_endpoint');
    expect(metadata).not.toHaveProperty('require_pushed_authorization_requests');
    const pushed = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    expectError(await call('POST', '/api/platform/v1/oauth/par', form, pushed.toString()), 404, 'not_found');
    expectError(await call('GET', '/api/platform/v1/oauth/jwks'), 404, 'not_found');
  });
});

describe('methods a provider path does not have', () => {
  it('are 404 not_found in the envelope', async () => {
    const paths = ['/api/platform/v1/oauth/token', '/api/platform/v1/oauth/authorize', '/.well-known/oauth-authorization-server', '/api/platform/v1/oauth/revoke', DEVICE];
    for (const path of paths) {
      for (const method of ['TRACE', 'PATCH', 'PUT', 'DELETE']) {
        const res = await call(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expectError(res, 404, 'not_found');
      }
    }
  });
});

describe('the device confirmation form', () => {
  const confirm = new URLSearchParams({ user_code: 'BCDF-GHJK', xsrf: 'forged', confirm: 'yes' }).toString();

  it('posted without a session, or with a cookie that fails its signature, is an HTML page', async () => {
    expectHtmlRefusal(await call('POST', DEVICE, form, confirm));
    expectHtmlRefusal(await call('POST', DEVICE, { ...form, cookie: '_session=forged; _session.sig=forged' }, confirm));
  });

  it('posted with a bad xsrf token in a real session is an HTML page', async () => {
    const start = await call('GET', DEVICE);
    expect(start.status).toBe(200);
    const cookie = start.setCookie.map((c) => c.split(';')[0]).join('; ');
    expect(cookie).toContain('_session=');
    expectHtmlRefusal(await call('POST', DEVICE, { ...form, cookie }, confirm));
  });

  it('has a resume step that without a session is an HTML page', async () => {
    expectHtmlRefusal(await call('GET', `${DEVICE}/no-such-interaction`));
  });
});
