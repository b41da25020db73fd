// The HTTP pipeline over real HTTP: request ids, the error envelopes, 404s, body limits at the byte,
// the 10-second body deadline, malformed JSON, CORS, health checks and the access log.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { jsonOfSize, rawRequest } from './helpers/http.ts';
import { until } from './helpers/wait.ts';

let app: TestApp;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await startTestApp({}, { log: pino({ level: 'info' }, sink) });
});
afterAll(() => app?.stop());

const REQUEST_ID = /^req_[A-Za-z0-9_-]{16}$/;

function expectPlatformEnvelope(res: { headers: Record<string, unknown>; json(): unknown }, code: string) {
  const id = res.headers['x-service-request-id'];
  expect(id).toMatch(REQUEST_ID);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'request_id']);
  expect(body.error).toBe(code);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  expect(body.request_id).toBe(id);
}

describe('request ids and 404', () => {
  it('puts a fresh request id on every response', async () => {
    const a = await fetch(`${app.url}/healthz`);
    const b = await fetch(`${app.url}/healthz`);
    expect(a.headers.get('x-service-request-id')).toMatch(REQUEST_ID);
    expect(b.headers.get('x-service-request-id')).not.toBe(a.headers.get('x-service-request-id'));
  });

  it('answers an unknown platform path with 404 not_found in the envelope', async () => {
    const res = await rawRequest(app.url, { method: 'GET', path: '/api/platform/v1/no-such-thing' });
    expect(res.status).toBe(404);
    expectPlatformEnvelope(res, 'not_found');
  });

  it('answers a wrong method on a known path with 404 not_found', async () => {
    const res = await rawRequest(app.url, { method: 'DELETE', path: '/api/public/v1/catalog/search?q=x' });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ message: expect.any(String) });
    expect(res.headers['x-service-request-id']).toMatch(REQUEST_ID);
  });

  it('answers an unknown public path with {message} only', async () => {
    const res = await rawRequest(app.url, { method: 'GET', path: '/api/public/v1/nothing/here' });
    expect(res.status).toBe(404);
    expect(Object.keys(res.json() as object)).toEqual(['message']);
  });

  it('answers a path outside both APIs with the platform envelope', async () => {
    const res = await rawRequest(app.url, { method: 'GET', path: '/nothing' });
    expect(res.status).toBe(404);
    expectPlatformEnvelope(res, 'not_found');
  });
});

describe('bodies', () => {
  const post = (path: string, body: Buffer, type = 'application/json') =>
    rawRequest(app.url, { method: 'POST', path, headers: { 'content-type': type, 'content-length': body.length }, body });

  it('accepts a JSON body of exactly 65,536 bytes', async () => {
    const body = jsonOfSize(65_536);
    expect(body.length).toBe(65_536);
    // No platform route takes this body; reaching routing (404, not 413) shows it was read and parsed.
    const res = await post('/api/platform/v1/echo', body);
    expect(res.status).toBe(404);
    expectPlatformEnvelope(res, 'not_found');
  });

  it('rejects a JSON body of 65,537 bytes with 413', async () => {
    const res = await post('/api/platform/v1/echo', jsonOfSize(65_537));
    expect(res.status).toBe(413);
    expectPlatformEnvelope(res, 'payload_too_large');
  });

  it('counts bytes of a chunked body with no Content-Length', async () => {
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/api/platform/v1/echo',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      sendBody: (req) => {
        const body = jsonOfSize(65_537);
        req.write(body.subarray(0, 40_000));
        req.end(body.subarray(40_000));
      },
    });
    expect(res.status).toBe(413);
    expectPlatformEnvelope(res, 'payload_too_large');
  });

  it('accepts a form body of exactly 65,536 bytes and rejects one byte more', async () => {
    const form = (size: number) => Buffer.from(`a=${'b'.repeat(size - 2)}`);
    const ok = await post('/api/platform/v1/echo', form(65_536), 'application/x-www-form-urlencoded');
    expect(ok.status).toBe(404);
    const over = await post('/api/platform/v1/echo', form(65_537), 'application/x-www-form-urlencoded');
    expect(over.status).toBe(413);
    expectPlatformEnvelope(over, 'payload_too_large');
  });

  it('allows 512 KiB on /sync/* and not one byte more', async () => {
    const ok = await post('/api/platform/v1/sync/history', jsonOfSize(524_288));
    expect(ok.status).not.toBe(413);
    const over = await post('/api/platform/v1/sync/history', jsonOfSize(524_289));
    expect(over.status).toBe(413);
    expectPlatformEnvelope(over, 'payload_too_large');
    // The larger limit is for sync only.
    const elsewhere = await post('/api/platform/v1/lists', jsonOfSize(65_537));
    expect(elsewhere.status).toBe(413);
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await post('/api/platform/v1/echo', Buffer.from('{"a": '));
    expect(res.status).toBe(400);
    expectPlatformEnvelope(res, 'invalid_request');
  });

  it('answers malformed JSON on the public API with {message}', async () => {
    const res = await post('/api/public/v1/catalog/search', Buffer.from('{nope'));
    expect(res.status).toBe(400);
    expect(Object.keys(res.json() as object)).toEqual(['message']);
  });

  it('answers a body not complete within 10 seconds with 408', async () => {
    const started = Date.now();
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/api/platform/v1/echo',
      headers: { 'content-type': 'application/json', 'content-length': 100 },
      sendBody: (req) => req.write('{"a":'), // and never the rest
    });
    const waited = Date.now() - started;
    expect(res.status).toBe(408);
    expectPlatformEnvelope(res, 'request_timeout');
    expect(waited).toBeGreaterThanOrEqual(9_900);
    expect(res.headers.connection).toBe('close');
  }, 20_000);
});

describe('requests Node refuses before the app sees them', () => {
  it('answers a request line over 16 KiB with 431 in the envelope, on each API', async () => {
    const long = 'x'.repeat(20_000);
    const platform = await rawRequest(app.url, { method: 'GET', path: `/api/platform/v1/me/history?cursor=${long}` });
    expect(platform.status).toBe(431);
    expectPlatformEnvelope(platform, 'invalid_request');
    const pub = await rawRequest(app.url, { method: 'GET', path: `/api/public/v1/catalog/search?q=${long}` });
    expect({ status: pub.status, body: pub.json() }).toEqual({ status: 431, body: { message: 'The request line and headers are over the 16 KiB limit' } });
    expect(pub.headers['x-service-request-id']).toMatch(REQUEST_ID);
  });
});

describe('CORS', () => {
  it('answers a preflight and exposes the rate-limit headers and request id', async () => {
    const res = await rawRequest(app.url, {
      method: 'OPTIONS',
      path: '/api/platform/v1/me',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers'])).toContain('Authorization');
    const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'X-Service-Request-Id', 'Deprecation', 'Sunset', 'Link']));
  });

  it('exposes the same headers on ordinary responses', async () => {
    const res = await fetch(`${app.url}/api/public/v1/catalog/trending`, { headers: { origin: 'https://app.example' } });
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  });
});

describe('health', () => {
  it('reports liveness and readiness', async () => {
    expect(await (await fetch(`${app.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', writes: 'ok' });
  });
});

describe('access log', () => {
  it('writes one structured line per request with id, method, route, status and duration', async () => {
    const res = await fetch(`${app.url}/api/public/v1/catalog/trending?limit=1`);
    const id = res.headers.get('x-service-request-id');
    await res.text();
    await until('the access log line', () => logLines.some((l) => l.request_id === id && l.msg === 'request'));
    const lines = logLines.filter((l) => l.request_id === id && l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      method: 'GET',
      route: 'GET /api/public/v1/catalog/trending',
      path: '/api/public/v1/catalog/trending',
      status: 200,
      client_id: null,
      user_id: null,
    });
    expect(typeof lines[0]!.duration_ms).toBe('number');
  });
});
