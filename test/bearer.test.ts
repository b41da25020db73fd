// Bearer verification (oauth/bearer.ts) reads the token's stored row, its app and its grant in one
// statement on every request: each condition that must hold is broken here on its own, on a token that
// was just accepted, and the very next request is refused 401 invalid_token (no cached verdict).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { artifactKey } from '../src/oauth/adapter.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { member, platform } from './helpers/seed.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const me = (token: string) => platform(app, token, 'GET', '/me');
const sql = (text: string, params: unknown[]) => query(app.db.orm.em.fork(), { text, params });
let n = 0;
const fresh = async (scopes = ['profile:read']) => member(app, `bearer_${++n}`, scopes);

describe('bearer verification, on every request', () => {
  it('accepts a live token: the actor is its user, app and scopes', async () => {
    const m = await fresh(['profile:read', 'lists:read']);
    const res = await me(m.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: m.userId, username: m.username, scopes: ['lists:read', 'profile:read'], app: { clientId: m.clientId, official: false } });
  });

  it('refuses a token whose payload expired, though its row has not been swept yet', async () => {
    const m = await fresh();
    expect((await me(m.token)).status).toBe(200);
    await sql(`update oauth_artifact set payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 1)) where id = $1`, [artifactKey('AccessToken', m.token)]);
    expectError(await me(m.token), 401, 'invalid_token');
  });

  it('refuses a token whose row expired', async () => {
    const m = await fresh();
    expect((await me(m.token)).status).toBe(200);
    await sql(`update oauth_artifact set expires_at = now() - interval '1 second' where id = $1`, [artifactKey('AccessToken', m.token)]);
    expectError(await me(m.token), 401, 'invalid_token');
  });

  it('refuses a token once it is deleted (revoked)', async () => {
    const m = await fresh();
    expect((await me(m.token)).status).toBe(200);
    await sql(`delete from oauth_artifact where id = $1`, [artifactKey('AccessToken', m.token)]);
    expectError(await me(m.token), 401, 'invalid_token');
  });

  it('refuses a token whose grant expired', async () => {
    const m = await fresh();
    expect((await me(m.token)).status).toBe(200);
    const [row] = await sql(`select payload->>'grantId' as grant_id from oauth_artifact where id = $1`, [artifactKey('AccessToken', m.token)]) as [{ grant_id: string }];
    await sql(`update oauth_artifact set expires_at = now() - interval '1 second' where id = $1`, [artifactKey('Grant', row.grant_id)]);
    expectError(await me(m.token), 401, 'invalid_token');
  });

  it('refuses a token of an app made inactive by a plain update, and takes it back once active', async () => {
    const m = await fresh();
    expect((await me(m.token)).status).toBe(200);
    await sql(`update app set active = false where client_id = $1`, [m.clientId]);
    expectError(await me(m.token), 401, 'invalid_token');
    await sql(`update app set active = true where client_id = $1`, [m.clientId]);
    expect((await me(m.token)).status).toBe(200);
  });

  it('follows the app\'s official flag as it is now', async () => {
    const m = await fresh();
    expect((await me(m.token)).body).toMatchObject({ app: { official: false } });
    await sql(`update app set official = true where client_id = $1`, [m.clientId]);
    expect((await me(m.token)).body).toMatchObject({ app: { official: true } });
  });

  it('refuses a stored artifact of another kind presented as a bearer token, and tokens of other models', async () => {
    const m = await fresh();
    const key = artifactKey('AccessToken', m.token);
    await sql(`update oauth_artifact set payload = jsonb_set(payload, '{kind}', '"RefreshToken"') where id = $1`, [key]);
    expectError(await me(m.token), 401, 'invalid_token');
    const [grant] = await sql(`select payload->>'grantId' as grant_id from oauth_artifact where id = $1`, [key]) as [{ grant_id: string }];
    // A grant id is stored under the Grant model's key: it is no access token.
    expectError(await me(grant.grant_id), 401, 'invalid_token');
  });
});
