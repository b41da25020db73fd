// The life of issued tokens, against the running service: authorization codes are good once (reuse
// revokes what they gave, parallel redemption lets exactly one win), refresh tokens rotate and a replayed
// one revokes its chain, RFC 7009 revocation, app deactivation, and bearer authentication of GET /me.
// Tokens come from the real code flow: openid-client as the app, Chromium as the user.
import * as client from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAppActive } from '../src/core/apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { approvedCode, codeFlowTokens, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { expectError } from './helpers/envelope.ts';
import { getMe, makeUser, postForm, postJson } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;
// One signed-in browser for the whole file: the first flow signs alice in, later ones only consent.
let context: BrowserContext;
let aliceId: string;

beforeAll(async () => {
  app = await startTestApp();
  aliceId = (await makeUser(app, 'alice')).id;
  browser = await launchBrowser();
  context = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const path = (p: string) => `${app.url}/api/platform/v1${p}`;
const TOKEN = '/oauth/token';
const REFRESH = '/auth/refresh';
const TOKEN_KEYS = ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'scope', 'token_type'];
const alice = { username: 'alice' };

describe('authorization codes', () => {
  it('answers a reused code with 400 invalid_grant and revokes the tokens it already gave', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const { callback, verifier, state, code } = await approvedCode(context, c, alice);
    const tokens = await client.authorizationCodeGrant(c.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect((await getMe(app, tokens.access_token)).status).toBe(200);

    const again = await postForm(path(TOKEN), { grant_type: 'authorization_code', client_id: c.clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
    expectError(again, 400, 'invalid_grant');
    expectError(await getMe(app, tokens.access_token), 401, 'invalid_token');
    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: tokens.refresh_token }), 400, 'invalid_grant');
  });

  it('lets exactly one of 10 parallel redemptions of one code succeed', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    const { verifier, code } = await approvedCode(context, c, alice);
    const form = { grant_type: 'authorization_code', client_id: c.clientId, code, code_verifier: verifier, redirect_uri: REDIRECT };
    const answers = await Promise.all(Array.from({ length: 10 }, () => postForm(path(TOKEN), form)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(Object.keys(won[0]!.body).sort()).toEqual(TOKEN_KEYS);
    const lost = answers.filter((a) => a.status !== 200);
    expect(lost).toHaveLength(9);
    for (const a of lost) expectError(a, 400, 'invalid_grant');
    // The losers reused the code as surely as a later request would have: the winner's tokens go too.
    expectError(await getMe(app, String(won[0]!.body.access_token)), 401, 'invalid_token');
    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: won[0]!.body.refresh_token }), 400, 'invalid_grant');
  });
});

describe('refresh tokens', () => {
  it('rotates on /auth/refresh (JSON) and on /oauth/token (form), old and new access tokens both working', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read', 'history:read'], scope: 'profile:read history:read', ...alice });

    const first = await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: tokens.refresh_token });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(TOKEN_KEYS);
    expect(first.body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'profile:read history:read' });
    expect(Number.isInteger(first.body.refresh_expires_in)).toBe(true);
    expect(first.body.refresh_expires_in).toBeGreaterThan(0);
    expect(first.body.refresh_token).toEqual(expect.any(String));
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.body.access_token).not.toBe(tokens.access_token);

    // openid-client posts a form to the token endpoint, as any standard client does.
    const second = await client.refreshTokenGrant(c.config, String(first.body.refresh_token));
    expect(second).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'profile:read history:read' });
    expect(second.refresh_token).not.toBe(first.body.refresh_token);
    expect(second.refresh_expires_in).toBeGreaterThan(0);

    for (const access of [tokens.access_token, String(first.body.access_token), second.access_token]) {
      expect((await getMe(app, access)).status).toBe(200);
    }
  });

  it('answers a consumed refresh token with 400 invalid_grant and revokes the whole chain', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    const first = await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: tokens.refresh_token });
    expect(first.status).toBe(200);
    const second = await postForm(path(TOKEN), { grant_type: 'refresh_token', client_id: c.clientId, refresh_token: String(first.body.refresh_token) });
    expect(second.status).toBe(200);
    expect((await getMe(app, String(second.body.access_token))).status).toBe(200);

    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: tokens.refresh_token }), 400, 'invalid_grant');

    for (const access of [tokens.access_token, first.body.access_token, second.body.access_token]) {
      expectError(await getMe(app, String(access)), 401, 'invalid_token');
    }
    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: second.body.refresh_token }), 400, 'invalid_grant');
  });
});

describe('revoked grants', () => {
  it('answers 10 parallel refreshes of one token with one 200 and nine invalid_grant, revoking the chain', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    const form = { grant_type: 'refresh_token', client_id: c.clientId, refresh_token: tokens.refresh_token };
    const answers = await Promise.all(Array.from({ length: 10 }, () => postForm(path(TOKEN), form)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 400, 'invalid_grant');
    for (const access of [tokens.access_token, won[0]!.body.access_token]) expectError(await getMe(app, String(access)), 401, 'invalid_token');
    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: won[0]!.body.refresh_token }), 400, 'invalid_grant');
  });

  it('rejects an access token whose grant was revoked while the token was being issued', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    expect((await getMe(app, tokens.access_token)).status).toBe(200);
    // What a revocation racing the issuing request leaves behind: the grant deleted, then the token
    // saved by the request that was already past its checks.
    await query(app.db.orm.em.fork(), {
      text: `delete from oauth_artifact where model = 'Grant' and payload->>'clientId' = $1`,
      params: [c.clientId],
    });
    expectError(await getMe(app, tokens.access_token), 401, 'invalid_token');
  });
});

describe('revocation (RFC 7009)', () => {
  it('revokes an access token at once, and a refresh token so it can no longer refresh', async () => {
    const a = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    const revokeAccess = await postForm(path('/oauth/revoke'), { client_id: a.client.clientId, token: a.tokens.access_token });
    expect(revokeAccess.status).toBe(200);
    expectError(await getMe(app, a.tokens.access_token), 401, 'invalid_token');

    const b = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    const revokeRefresh = await postForm(path('/oauth/revoke'), {
      client_id: b.client.clientId,
      token: b.tokens.refresh_token,
      token_type_hint: 'refresh_token',
    });
    expect(revokeRefresh.status).toBe(200);
    expectError(await postJson(path(REFRESH), { client_id: b.client.clientId, refresh_token: b.tokens.refresh_token }), 400, 'invalid_grant');

    // RFC 7009 §2.2: an unknown token is answered 200 as well.
    expect((await postForm(path('/oauth/revoke'), { client_id: b.client.clientId, token: 'no-such-token' })).status).toBe(200);
  });
});

describe('app deactivation', () => {
  it('rejects the app\'s live access tokens at once and refuses to refresh them', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read'], ...alice });
    expect((await getMe(app, tokens.access_token)).status).toBe(200);
    await setAppActive(app.db.orm.em.fork(), c.clientId, false);

    expectError(await getMe(app, tokens.access_token), 401, 'invalid_token');
    expectError(await postJson(path(REFRESH), { client_id: c.clientId, refresh_token: tokens.refresh_token }), 400, 'unauthorized_client');
    expectError(await postForm(path(TOKEN), { grant_type: 'refresh_token', client_id: c.clientId, refresh_token: tokens.refresh_token }), 400, 'unauthorized_client');
  });
});

describe('GET /me', () => {
  it('answers no token with 401 invalid_token and WWW-Authenticate, and a token without profile:read with 403', async () => {
    const none = await getMe(app);
    expectError(none, 401, 'invalid_token');
    expect(none.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const unknown = await getMe(app, 'not-a-token');
    expectError(unknown, 401, 'invalid_token');
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');

    const { tokens } = await codeFlowTokens(app, context, { scopes: ['profile:read', 'history:read'], scope: 'history:read', ...alice });
    expect(tokens.scope).toBe('history:read');
    const denied = await getMe(app, tokens.access_token);
    expectError(denied, 403, 'insufficient_scope', { required_scope: 'profile:read' });
  });

  it('answers exactly {id, username, displayName, avatarUrl, createdAt, scopes, app}', async () => {
    const { client: c, tokens } = await codeFlowTokens(app, context, { scope: 'profile:read lists:read history:read', ...alice });
    const me = await getMe(app, tokens.access_token);
    expect(me.status).toBe(200);
    expect(Object.keys(me.body).sort()).toEqual(['app', 'avatarUrl', 'createdAt', 'displayName', 'id', 'scopes', 'username']);
    expect(me.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(me.body.id).toBe(aliceId);
    expect(me.body.username).toBe('alice');
    expect(me.body.displayName).toEqual(expect.any(String));
    expect(me.body.avatarUrl).toBeNull();
    expect(me.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(me.body.scopes).toEqual(['history:read', 'lists:read', 'profile:read']);
    expect(me.body.app).toStrictEqual({ clientId: c.clientId, name: 'Living Room TV', official: false });
  });
});
