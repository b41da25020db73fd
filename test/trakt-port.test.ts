// TRAKT_API_PORT: the Trakt-compatible facade at the root of a listener of its own (for a reverse proxy
// presenting it as a whole host), through the same application as PORT: a facade route at the root,
// Trakt's error answers, the pipeline's headers and limits; nothing but the facade is reachable there
// (a platform path, dot segments, an absolute-form target); a taken port stops start-up with one line
// naming the setting; the listener closes with the server; unset, there is none.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { StartFailure } from '../src/core/db/start-failure.ts';
import { traktTarget } from '../src/trakt/listener.ts';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase } from './helpers/db.ts';
import { call, rawRequest } from './helpers/http.ts';
import { member, type Member } from './helpers/seed.ts';

let app: TestApp;
let traktUrl: string;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp({ TRAKT_API_PORT: String(await freePort()) });
  traktUrl = app.traktUrl!;
  alice = await member(app, 'alice', ['profile:read']);
});
afterAll(() => app?.stop());

const traktHeaders = (m: Member) => ({ 'trakt-api-key': m.clientId, 'trakt-api-version': '2' });

describe('the facade at the root of TRAKT_API_PORT', () => {
  it('answers /users/settings there as /trakt/users/settings on PORT, byte for byte in shape', async () => {
    const own = await call(traktUrl, '/users/settings', { token: alice.token, headers: traktHeaders(alice) });
    const main = await call(app, '/trakt/users/settings', { token: alice.token, headers: traktHeaders(alice) });
    expect(own.status).toBe(200);
    expect(own.body).toEqual(main.body);
    expect((own.body.user as Record<string, unknown>).username).toBe('alice');
    // The same pipeline: its request id.
    expect(own.headers.get('x-service-request-id')).toMatch(/^req_/);
  });

  it('answers Trakt\'s errors there: 401 without a token, 403 without a key', async () => {
    const noToken = await call(traktUrl, '/users/settings', { headers: traktHeaders(alice) });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
    const noKey = await call(traktUrl, '/users/settings', { token: alice.token });
    expect(noKey.status).toBe(403);
    expect(noKey.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  it('serves the facade\'s OpenAPI document at /openapi.json', async () => {
    const doc = await call(traktUrl, '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
  });

  it('reaches nothing but the facade: the platform API, the public API, health, the web app and OAuth answer Trakt\'s 404', async () => {
    for (const path of ['/api/platform/v1/me', '/api/public/v1/titles/search?q=x', '/healthz', '/readyz', '/account/sign-in', '/.well-known/openid-configuration', '/trakt/users/settings', '/']) {
      const res = await call(traktUrl, path, { token: alice.token, headers: traktHeaders(alice) });
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
    // The same token on the main port's platform API works: it is the path, not the token.
    expect((await call(app, '/api/platform/v1/me', { token: alice.token })).status).toBe(200);
  });

  it('reaches nothing but the facade with dot segments or an absolute-form target either', async () => {
    // Sent as written (http.request does not normalize the path, as fetch would).
    for (const path of ['/../api/platform/v1/me', '/users/../../api/platform/v1/me', '/%2e%2e/api/platform/v1/me']) {
      const res = await rawRequest(traktUrl, { method: 'GET', path, headers: { authorization: `Bearer ${alice.token}`, ...traktHeaders(alice) } });
      expect(res.status, path).toBe(404);
      expect(res.json(), path).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
    const absolute = await rawAbsolute(traktUrl, `${app.url}/api/platform/v1/me`, alice.token);
    expect(absolute.status).toBe(404);
    const absoluteTrakt = await rawAbsolute(traktUrl, 'http://trakt.example/users/settings', alice.token, traktHeaders(alice));
    expect(absoluteTrakt.status).toBe(200);
  });

  it('maps request targets onto /trakt', () => {
    expect(traktTarget('/users/settings?extended=full')).toBe('/trakt/users/settings?extended=full');
    expect(traktTarget('/')).toBe('/trakt/');
    expect(traktTarget('http://h.example/sync/history?page=2')).toBe('/trakt/sync/history?page=2');
    expect(traktTarget('*')).toBe('/trakt/*');
    expect(traktTarget('h.example:443')).toBe('/trakt/h.example%3A443');
  });
});

/** One request whose target is in absolute form (`GET http://host/path HTTP/1.1`), as a proxy may send it. */
function rawAbsolute(base: string, target: string, token: string, headers: Record<string, string> = {}): Promise<{ status: number }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const lines = [`GET ${target} HTTP/1.1`, `Host: ${hostname}:${port}`, `Authorization: Bearer ${token}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''];
      socket.write(lines.join('\r\n'));
    });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) }));
    socket.on('error', reject);
  });
}

describe('the setting', () => {
  it('is optional: unset, there is no second listener', async () => {
    expect(loadConfig({}).traktApiPort).toBeUndefined();
    expect(app.traktUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const plain = await startTestApp();
    try {
      expect(plain.traktUrl).toBeUndefined();
    } finally {
      await plain.stop();
    }
  });

  it('is parsed like PORT, and may not be PORT', () => {
    expect(loadConfig({ TRAKT_API_PORT: '3001' }).traktApiPort).toBe(3001);
    expect(() => loadConfig({ TRAKT_API_PORT: '70000' })).toThrow('invalid configuration: TRAKT_API_PORT must be 0 to 65535 (got "70000")');
    expect(() => loadConfig({ TRAKT_API_PORT: 'x' })).toThrow(/^invalid configuration: TRAKT_API_PORT /);
    expect(() => loadConfig({ PORT: '3000', TRAKT_API_PORT: '3000' })).toThrow('invalid configuration: TRAKT_API_PORT must differ from PORT (both 3000)');
  });

  it('a taken TRAKT_API_PORT stops start-up with one line naming it, and gives PORT back', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const held = (holder.address() as net.AddressInfo).port;
    const port = await freePort();
    const database = await freshDatabase();
    try {
      const started = startTestApp({ PORT: String(port), TRAKT_API_PORT: String(held) }, { database });
      await expect(started).rejects.toThrow(StartFailure);
      await expect(started).rejects.toThrow(`cannot listen on TRAKT_API_PORT ${held} on HOST 127.0.0.1: the port is in use by another process; stop it or choose another TRAKT_API_PORT`);
      // PORT was claimed first and given back: it can be listened on again.
      const again = net.createServer();
      await new Promise<void>((resolve, reject) => again.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => again.close(() => resolve()));
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
      await database.cleanup();
    }
  });
});

describe('shutdown', () => {
  it('closes the TRAKT_API_PORT listener with the server', async () => {
    const other = await startTestApp({ TRAKT_API_PORT: String(await freePort()) });
    const { port } = new URL(other.traktUrl!);
    expect((await call(other.traktUrl!, '/openapi.json')).status).toBe(200);
    await other.stop();
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(Number(port), '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    });
    expect(refused).toBe(true);
  });
});
