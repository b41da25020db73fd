// Pins what src/oauth/client-secret-hash.ts relies on in oidc-provider: the provider authenticates
// client_secret_post and client_secret_basic by calling `Client#compareClientSecret` with the presented
// secret, and the library's own method compares by equality (so a stored argon2id hash needs ours).
// Fails when the library stops consulting the method, renames it, or starts handling hashes itself.
import Provider from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashSecret } from '../src/core/security/argon2.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { makeApp } from './helpers/oauth.ts';

let app: TestApp;
let clientId: string;
let secret: string;

beforeAll(async () => {
  app = await startTestApp();
  const made = await makeApp(app, { confidential: true, scopes: ['profile:read'] });
  clientId = made.client_id;
  secret = made.client_secret!;
});
afterAll(() => app?.stop());
afterEach(() => vi.restoreAllMocks());

/** A refresh at the token endpoint with an unknown token: the client is authenticated before the grant is looked at. */
async function refresh(auth: { basic?: string; post?: string }) {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'no-such-token' });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth.post !== undefined) {
    form.set('client_id', clientId);
    form.set('client_secret', auth.post);
  }
  if (auth.basic !== undefined) headers.authorization = `Basic ${Buffer.from(`${clientId}:${auth.basic}`).toString('base64')}`;
  const res = await fetch(`${app.url}/api/platform/v1/oauth/token`, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

describe("oidc-provider's client secret comparison", () => {
  it('is a method of the Client class that compares by equality: a stored argon2id hash never matches its secret', async () => {
    // A bare provider, as the library builds it (its warnings about a development set-up are not ours).
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { Client } = new Provider('http://127.0.0.1');
    const compare = Object.getOwnPropertyDescriptor(Client.prototype, 'compareClientSecret')?.value as (this: { clientSecret: string }, actual: string) => unknown;
    expect(typeof compare).toBe('function');
    const hash = await hashSecret('s3cret');
    expect(await compare.call({ clientSecret: hash }, 's3cret')).toBe(false);
    expect(await compare.call({ clientSecret: 's3cret' }, 's3cret')).toBe(true);
  });

  it('is what the token endpoint consults for client_secret_post and client_secret_basic, with the presented secret', async () => {
    const { Client } = app.oauth.provider;
    const compare = vi.spyOn(Client.prototype, 'compareClientSecret');
    // Authenticated: the refresh token is what fails.
    expect((await refresh({ post: secret })).body.error).toBe('invalid_grant');
    expect((await refresh({ basic: secret })).body.error).toBe('invalid_grant');
    expectError(await refresh({ post: `${secret}x` }), 401, 'invalid_client');
    expectError(await refresh({ basic: 'wrong' }), 401, 'invalid_client');
    expect(compare.mock.calls).toEqual([[secret], [secret], [`${secret}x`], ['wrong']]);
    expect(await Promise.all(compare.mock.results.map((r) => r.value))).toEqual([true, true, false, false]);
  });
});
