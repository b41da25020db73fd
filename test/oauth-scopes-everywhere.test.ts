// A scope that is not one of the 16 (or not the app's) is refused with `invalid_scope` wherever a
// request can name a scope, never dropped in silence: the authorization endpoint by GET and by POST
// (a redirect back to the app carrying `iss`, RFC 9207, like the provider's own error redirects), the
// device code endpoint, and token requests of every grant on /oauth/token, /auth/refresh and
// /auth/device/token. A refresh that narrows to scopes its grant has still works.
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { REDIRECT } from './helpers/code-flow.ts';
import { expectError } from './helpers/envelope.ts';
import { makeApp, makeUser, postForm, postJson } from './helpers/oauth.ts';
import { issueRefreshToken } from './helpers/tokens.ts';

let app: TestApp;
let clientId: string;
let userId: string;
let issuer: string;
beforeAll(async () => {
  app = await startTestApp();
  userId = (await makeUser(app, 'alice')).id;
  clientId = (await makeApp(app, { redirectUri: REDIRECT, scopes: ['profile:read', 'history:read'] })).client_id;
  issuer = ((await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }).issuer;
});
afterAll(() => app?.stop());

const path = (p: string) => `${app.url}/api/platform/v1${p}`;
// Unknown to the service, and known but outside this app's allowed scopes.
const REFUSED = ['profile:read bogus:scope', 'openid', 'profile:read trophies:read'];

async function authorizationParams(scope: string) {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: client.randomState(),
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  };
}

function expectScopeRedirect(res: Response, state: string) {
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get('error')).toBe('invalid_scope');
  expect(back.searchParams.get('state')).toBe(state);
  expect(back.searchParams.get('iss')).toBe(issuer);
  expect(back.searchParams.get('request_id')).toBe(res.headers.get('x-service-request-id'));
  expect(back.searchParams.has('code')).toBe(false);
}

describe('invalid_scope', () => {
  it('goes back to the app from the authorization endpoint, GET and POST, with iss', async () => {
    for (const scope of REFUSED) {
      const get = await authorizationParams(scope);
      expectScopeRedirect(await fetch(`${path('/oauth/authorize')}?${new URLSearchParams(get)}`, { redirect: 'manual' }), get.state);
      const post = await authorizationParams(scope);
      expectScopeRedirect(await fetch(path('/oauth/authorize'), { method: 'POST', body: new URLSearchParams(post), redirect: 'manual' }), post.state);
    }
  });

  it('is the device code endpoint\'s answer', async () => {
    for (const scope of REFUSED) expectError(await postJson(path('/auth/device/code'), { client_id: clientId, scope }), 400, 'invalid_scope');
  });

  it('is the answer to a token request of any grant that names such a scope', async () => {
    const refreshToken = await issueRefreshToken(app, { userId, clientId, scope: 'profile:read history:read' });
    for (const scope of REFUSED) {
      const refresh = { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, scope };
      expectError(await postForm(path('/oauth/token'), refresh), 400, 'invalid_scope');
      expectError(await postJson(path('/auth/refresh'), { client_id: clientId, refresh_token: refreshToken, scope }), 400, 'invalid_scope');
      const code = { grant_type: 'authorization_code', client_id: clientId, code: 'x', code_verifier: 'x'.repeat(43), redirect_uri: REDIRECT, scope };
      expectError(await postForm(path('/oauth/token'), code), 400, 'invalid_scope');
      const device = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: clientId, device_code: 'x', scope };
      expectError(await postForm(path('/oauth/token'), device), 400, 'invalid_scope');
      expectError(await postJson(path('/auth/device/token'), { client_id: clientId, device_code: 'x', scope }), 400, 'invalid_scope');
    }
    // The refresh token was never spent: it still refreshes, narrowed to a scope its grant has.
    const narrowed = await postJson(path('/auth/refresh'), { client_id: clientId, refresh_token: refreshToken, scope: 'history:read' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('history:read');
  });
});
