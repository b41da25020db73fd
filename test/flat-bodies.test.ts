// Bodies outside the JSON APIs are flat parameters: every POST route of the OAuth provider, its shims
// and the pages (sign-in, consent, account, developer apps, sign-up, import, export) takes a form, or
// JSON that is an object of string values. Any other JSON (a string, an empty string, a number, a
// boolean, an array, null, a nested value) is 400 `invalid_request` in the error envelope, refused by
// the body reader before any route sees it: `POST /oauth/authorize` with `"x"` was a 500 (`Cannot use
// 'in' operator`). The routes are read from the running app's router, so a new form is walked too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { rawRequest, type RawResponse } from './helpers/http.ts';
import { makeApp } from './helpers/oauth.ts';
import { expressRoutes } from './helpers/routes.ts';

let app: TestApp;
let clientId: string;

beforeAll(async () => {
  app = await startTestApp();
  clientId = (await makeApp(app, { scopes: ['profile:read'] })).client_id;
});
afterAll(() => app?.stop());

const NOT_FLAT = ['"x"', '""', '1', 'true', '["x"]', 'null', '{"a":{"b":1}}'];

/** The template with a sample value for each parameter. */
const instantiate = (template: string) => template.replace(/:([A-Za-z_]+)/g, (_, name: string) => (name === 'clientId' ? clientId : name === 'id' ? '1' : 'x'));

function answer(res: RawResponse) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
  let body: Record<string, unknown>;
  try {
    body = res.json() as Record<string, unknown>;
  } catch {
    body = { unparsed: res.body.slice(0, 200) };
  }
  return { status: res.status, body, headers };
}

const postJson = (path: string, body: string) =>
  rawRequest(app.url, { method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, body });

describe('a body that is not flat parameters', () => {
  it('is 400 invalid_request in the envelope on every POST provider and page route, never a 500', async () => {
    // The Trakt-compatible API is a JSON API of its own (test/trakt-facade.test.ts walks its bodies), and
    // the media servers' webhooks take their servers' bodies (test/media-server-hooks-bodies.test.ts).
    const posts = expressRoutes(app).filter((r) => r.method === 'POST' && !r.template.startsWith('/trakt/') && !r.template.startsWith('/hooks/'));
    const paths = [...new Set(posts.map((r) => instantiate(r.template)))];
    // The walk reaches the provider's endpoints, the shims, the consent and sign-in forms and the account pages.
    for (const path of [
      '/api/platform/v1/oauth/authorize',
      '/api/platform/v1/oauth/token',
      '/api/platform/v1/oauth/revoke',
      '/api/platform/v1/auth/device/code',
      '/api/platform/v1/auth/device/token',
      '/api/platform/v1/auth/refresh',
      '/api/platform/v1/auth/device',
      '/oauth/interaction/x/login',
      '/oauth/interaction/x/consent',
      '/account/sign-in',
      '/account/sign-out',
      '/account/sign-up',
      '/account/import',
      '/account/export',
      '/account/apps',
      `/account/apps/${clientId}/rotate-secret`,
      `/account/connected-apps/${clientId}/revoke`,
    ]) {
      expect(paths).toContain(path);
    }
    const wrong: string[] = [];
    for (const path of paths) {
      for (const body of NOT_FLAT) {
        const a = answer(await postJson(path, body));
        try {
          expectError(a, 400, 'invalid_request');
        } catch {
          wrong.push(`${path} ${body} -> ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('says what a flat body is', async () => {
    const a = answer(await postJson('/api/platform/v1/oauth/authorize', '"x"'));
    expectError(a, 400, 'invalid_request');
    expect(a.body.message).toBe('The body must be a form, or a JSON object of string values');
  });

  it('an object of strings still reaches the route: the authorize form and the token endpoint answer for its fields', async () => {
    const token = answer(await postJson('/api/platform/v1/oauth/token', JSON.stringify({ client_id: clientId, grant_type: 'refresh_token', refresh_token: 'no-such-token', client_secret: null })));
    expectError(token, 400, 'invalid_grant');
    const authorize = await postJson('/api/platform/v1/oauth/authorize', JSON.stringify({ client_id: 'app_unknown' }));
    expect(authorize.status).toBe(400);
    expect(authorize.body).toContain('unauthorized_client');
  });
});
