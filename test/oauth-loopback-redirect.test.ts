// Loopback redirect URIs are matched exactly, port included, as every other redirect URI (the README's
// rule): an app registered with http://127.0.0.1:8765/cb that asks for port 9999 (or no port) gets an
// error page and nothing is sent anywhere; the registered string itself starts the sign-in.
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp } from './helpers/oauth.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

async function authorize(clientId: string, redirectUri: string) {
  const url = new URL(`${app.url}/api/platform/v1/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'profile:read',
    state: client.randomState(),
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type') ?? '' };
}

describe('loopback redirect URIs', () => {
  for (const registered of ['http://127.0.0.1:8765/cb', 'http://[::1]:8765/cb']) {
    it(`registered as ${registered}: another port is refused with an error page, the exact URI is accepted`, async () => {
      const { client_id: clientId } = await makeApp(app, { redirectUri: registered, scopes: ['profile:read'] });
      for (const other of [registered.replace(':8765', ':9999'), registered.replace(':8765', '')]) {
        const refused = await authorize(clientId, other);
        expect(refused.status, other).toBe(400);
        expect(refused.location).toBeNull();
        expect(refused.type).toMatch(/^text\/html/);
      }
      const accepted = await authorize(clientId, registered);
      expect(accepted.status).toBe(303);
      expect(accepted.location).toMatch(/\/oauth\/interaction\//);
    });
  }
});
