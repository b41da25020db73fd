// Every URL the service hands out comes from BASE_URL, never from the request: a client that forges
// Host, X-Forwarded-Host and X-Forwarded-Proto (or sends an absolute-form request line naming another
// origin) still gets the configured origin in the RFC 8414 metadata, the device flow's verification
// URIs, the redirects of an authorization (to the sign-in page, to the resume step, to consent) and the
// OpenAPI documents' `servers`. BASE_URL is an https origin here while the service listens on plain
// http, as behind a TLS-terminating proxy.
import http from 'node:http';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { REDIRECT } from './helpers/code-flow.ts';
import { makeApp, makeUser, PASSWORD } from './helpers/oauth.ts';

const BASE_URL = 'https://tracker.example';
const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-port': '8080' };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ BASE_URL });
  await makeUser(app, 'alice');
});
afterAll(() => app?.stop());

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** A request with exactly these headers and this request target (which may be absolute-form). */
function send(method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every absolute URL in a JSON document. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

function expectAtBase(url: string | undefined) {
  expect(url, 'a URL').toEqual(expect.any(String));
  expect(url!.startsWith(`${BASE_URL}/`), url).toBe(true);
}

/** Cookies the service set, sent back on every later request (paths ignored: a superset is harmless). */
class Jar {
  private cookies = new Map<string, string>();
  take(a: Answer) {
    for (const line of a.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return a;
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The first form of a page: its action and every named input's value. */
function formOf(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error('no form on the page');
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    if (name) fields[name] = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
  }
  return { action: form[1]!.replace(/&amp;/g, '&'), fields };
}

/** The origin-form target of a URL the service gave, to send it to the listening address. */
const targetOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('URLs come from BASE_URL only', () => {
  it('in the authorization server metadata, whatever Host and X-Forwarded-* say', async () => {
    for (const target of ['/.well-known/oauth-authorization-server', 'http://evil.example/.well-known/oauth-authorization-server']) {
      const res = await send('GET', target, FORGED);
      expect(res.status).toBe(200);
      const metadata = JSON.parse(res.body) as Record<string, unknown>;
      expect(metadata.issuer).toBe(BASE_URL);
      const urls = urlsIn(metadata).filter((u) => u !== BASE_URL);
      expect(urls.length).toBeGreaterThanOrEqual(4);
      for (const url of urls) expectAtBase(url);
    }
  });

  it('in the device code response', async () => {
    const created = await makeApp(app);
    const res = await send('POST', '/api/platform/v1/auth/device/code', { ...FORGED, 'content-type': 'application/json' }, JSON.stringify({ client_id: created.client_id }));
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as Record<string, string>;
    expectAtBase(body.verification_uri);
    expectAtBase(body.verification_uri_complete);
    expect(body.verification_uri).toBe(`${BASE_URL}/api/platform/v1/auth/device`);
  });

  it('in every redirect of an authorization: to sign-in, to the resume step, to consent', async () => {
    const created = await makeApp(app, { redirectUri: REDIRECT, scopes: ['profile:read'] });
    const verifier = client.randomPKCECodeVerifier();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: created.client_id,
      redirect_uri: REDIRECT,
      scope: 'profile:read',
      state: client.randomState(),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const jar = new Jar();
    const headers = () => ({ ...FORGED, cookie: jar.header() });

    const started = jar.take(await send('GET', `/api/platform/v1/oauth/authorize?${query}`, headers()));
    expect(started.status).toBe(303);
    expectAtBase(started.headers.location);

    const signInPage = jar.take(await send('GET', targetOf(started.headers.location!), headers()));
    expect(signInPage.status).toBe(200);
    const form = formOf(signInPage.body);
    const body = new URLSearchParams({ ...form.fields, username: 'alice', password: PASSWORD }).toString();
    const signedIn = jar.take(await send('POST', form.action, { ...headers(), 'content-type': 'application/x-www-form-urlencoded' }, body));
    expect(signedIn.status).toBe(303);
    expectAtBase(signedIn.headers.location);
    expect(signedIn.headers.location!.startsWith(`${BASE_URL}/api/platform/v1/oauth/authorize/`)).toBe(true);

    const resumed = jar.take(await send('GET', targetOf(signedIn.headers.location!), headers()));
    expect(resumed.status).toBe(303);
    expectAtBase(resumed.headers.location);
  });

  it("in the OpenAPI documents' servers", async () => {
    for (const doc of ['/api/platform/v1/openapi.json', '/api/public/v1/openapi.json']) {
      const res = await send('GET', doc, FORGED);
      expect(res.status).toBe(200);
      const servers = (JSON.parse(res.body) as { servers: { url: string }[] }).servers;
      expect(servers.length).toBeGreaterThan(0);
      for (const s of servers) expectAtBase(s.url);
    }
  });
});
