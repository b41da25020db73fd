// The Trakt-compatible facade's conventions, whatever the route: trakt-api-key (403 for a key that is no
// active app's, or another app's than the token's), trakt-api-version, 401 without a token where a user is
// needed, Trakt's error body, 404 for an unknown path, the rate-limit
// headers on every answer, and the facade's OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { call } from './helpers/http.ts';
import { member, type Member } from './helpers/seed.ts';
import { trakt } from './helpers/trakt.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { TRAKT_ROUTES } from '../src/trakt/routes/index.ts';

let app: TestApp;
let alice: Member;
let bob: Member;

beforeAll(async () => {
  app = await startTestApp();
  alice = await member(app, 'alice', ['profile:read']);
  bob = await member(app, 'bob', ['profile:read']);
});
afterAll(() => app?.stop());

describe('trakt-api-key and the token', () => {
  it('answers a signed-in route with the key of the token\'s app', async () => {
    const res = await trakt(app, alice, 'GET', '/users/settings');
    expect(res.status).toBe(200);
    expect((res.body.user as Record<string, unknown>).username).toBe('alice');
  });

  it('403 with no key, an unknown key, or another app\'s key than the token\'s', async () => {
    for (const key of [undefined, 'nope', bob.clientId]) {
      const res = await call(app, '/trakt/users/settings', { token: alice.token, headers: key ? { 'trakt-api-key': key } : {} });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    }
  });

  it('401 without a token, and with a bad one, in Trakt\'s error body', async () => {
    for (const token of [null, 'not-a-token']) {
      const res = await trakt(app, { clientId: alice.clientId, token: token as null }, 'GET', '/users/settings');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('400 for another trakt-api-version', async () => {
    const res = await trakt(app, alice, 'GET', '/users/settings', undefined, { 'trakt-api-version': '3' });
    expect(res.status).toBe(400);
  });

  it('404 in Trakt\'s body for a path it does not serve', async () => {
    const res = await trakt(app, alice, 'GET', '/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    expect(res.headers.get('x-service-request-id')).toMatch(/^req_/);
  });
});

describe('bodies a fuzzer sends', () => {
  it('every write route answers JSON that is not its shape with a 4xx in Trakt\'s body, never a 5xx', async () => {
    const all = await member(app, 'fuzzer', [...SCOPES]);
    const writes = TRAKT_ROUTES.filter((r) => r.method !== 'GET');
    expect(writes.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const route of writes) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => (name === 'id' && route.path.startsWith('/users/') ? 'me' : '1'));
      for (const body of ['"x"', '1', 'true', '["x"]', 'null', '{"a":{"b":1}}', '{"movies":"x","shows":[1],"progress":"x","name":[]}']) {
        const res = await call(app, `/trakt${path}`, { method: route.method, token: all.token, body, headers: { 'trakt-api-key': all.clientId } });
        const errorShape = res.status < 400 || (Object.keys(res.body).sort().join() === 'error,error_description' && typeof res.body.error_description === 'string');
        if (res.status >= 500 || !errorShape) wrong.push(`${route.method} ${path} ${body} -> ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('/trakt/openapi.json', () => {
  it('lists every route the facade serves', async () => {
    const res = await call(app, '/trakt/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths as object)).toContain('/users/settings');
  });
});
