// One procedure, one policy: a procedure's rate-limit buckets and body cap are declared in its metadata
// and hold whichever transport calls it. The walk covers every procedure of the router, so a new one
// cannot be reachable on /trpc with less than its REST route enforces (or the other way round).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT, SYNC_BODY_LIMIT } from '../src/core/limits/body.ts';
import { LIMITS, limitById } from '../src/core/limits/table.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { bodyLimitFor } from '../src/rest/body.ts';
import { PLATFORM_BASE, PUBLIC_BASE } from '../src/rest/envelope.ts';
import { PROCEDURES, restProcedure, trpcProcedures, type ProcedureEntry } from '../src/rpc/procedures.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { call, jsonOfSize, rawRequest, type Answer } from './helpers/http.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { issueToken } from './helpers/tokens.ts';

let app: TestApp;
let token: string;
let user: { id: string };
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  user = await makeUser(app, 'policy');
  const client = await makeApp(app, { scopes: [...SCOPES], official: true });
  token = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: SCOPES.join(' ') });
});
afterAll(() => app?.stop());

const base = (p: ProcedureEntry) => (p.surface === 'public' ? PUBLIC_BASE : PLATFORM_BASE);
/** A concrete path for a route template: each parameter a value no fixed segment has. */
const samplePath = (p: ProcedureEntry) => p.rest!.path.replace(/\{[^}]+\}/g, 'zz9');
const withRest = PROCEDURES.filter((p) => p.rest);

const send = (path: string, method: string, opts: { token?: string | undefined; body?: string } = {}): Promise<Answer> =>
  call(app, path, { method, token: opts.token, body: opts.body });

/** The procedure once over REST and once over /trpc, with the same (invalid or harmless) input. */
function viaRest(p: ProcedureEntry, t?: string): Promise<Answer> {
  const method = p.rest!.method;
  const hasBody = method !== 'GET' && method !== 'DELETE';
  return send(`${base(p)}${samplePath(p)}`, method, { token: t, ...(hasBody ? { body: '{}' } : {}) });
}
function viaTrpc(p: ProcedureEntry, t?: string): Promise<Answer> {
  return p.type === 'query' ? send(`/trpc/${p.trpcName}`, 'GET', { token: t }) : send(`/trpc/${p.trpcName}`, 'POST', { token: t, body: '{}' });
}

describe('every procedure declares its policy once', () => {
  it('is found under its own REST route and its /trpc name, with one body cap for both', () => {
    expect(PROCEDURES.length).toBeGreaterThan(60);
    for (const p of withRest) {
      expect(restProcedure(p.surface, p.rest!.method, samplePath(p)), `${p.trpcName} is shadowed on REST`).toBe(p);
      expect(trpcProcedures(`/${p.trpcName}`)).toEqual([p]);
      const cap = p.meta.bodyLimit ?? BODY_LIMIT;
      expect(bodyLimitFor(p.rest!.method, `${base(p)}${samplePath(p)}`), p.trpcName).toBe(cap);
      expect(bodyLimitFor('POST', `/trpc/${p.trpcName}`), p.trpcName).toBe(cap);
    }
    // The bulk sync writes take 512 KiB; a batch takes the largest cap of its calls.
    expect(bodyLimitFor('POST', '/trpc/platform.sync.history')).toBe(SYNC_BODY_LIMIT);
    expect(bodyLimitFor('POST', `/trpc/${encodeURIComponent('platform.lists.create,platform.sync.ratings')}`)).toBe(SYNC_BODY_LIMIT);
  });

  it('names only limits of its own surface that procedures count, and every such limit is named', () => {
    const named = new Set<string>();
    for (const p of PROCEDURES) {
      for (const id of p.meta.limits ?? []) {
        const limit = limitById(id);
        expect(limit.checkedBy, `${p.trpcName}: ${id}`).toBe('procedure');
        expect(limit.surface, `${p.trpcName}: ${id}`).toBe(p.surface);
        named.add(id);
      }
    }
    for (const l of LIMITS.filter((x) => x.checkedBy === 'procedure')) expect(named.has(l.id), `${l.id} is named by no procedure`).toBe(true);
  });
});

describe('REST and /trpc draw from the same buckets', () => {
  it.each(withRest.map((p) => [p.trpcName, p] as const))('%s', async (_name, p) => {
    const t = p.surface === 'platform' ? token : undefined;
    const rest = await viaRest(p, t);
    const trpc = await viaTrpc(p, t);
    const limit = rest.headers.get('x-ratelimit-limit');
    expect(trpc.headers.get('x-ratelimit-limit')).toBe(limit);
    if (limit === null) {
      // Only public procedures without a bucket of their own answer without the headers.
      expect(p.surface).toBe('public');
      expect(p.meta.limits ?? []).toEqual([]);
      return;
    }
    // The same bucket: the /trpc call took the next request from what the REST call left.
    expect(Number(trpc.headers.get('x-ratelimit-remaining'))).toBe(Number(rest.headers.get('x-ratelimit-remaining')) - 1);
    const own = (p.meta.limits ?? []).map(limitById);
    if (own.length) expect(own.map((l) => String(l.points))).toContain(limit);
  });
});

describe('/trpc keeps the REST limits', () => {
  it('answers the 61st search of a minute from one address with 429, as REST does', async () => {
    const search = PROCEDURES.find((p) => p.trpcName === 'public.catalog.search')!;
    const input = encodeURIComponent(JSON.stringify({ q: 'the' }));
    // Earlier tests of this file took one search over each transport.
    const used = 2;
    for (let i = used; i < limitById('public-search').points; i++) {
      const ok = await send(`/trpc/${search.trpcName}?input=${input}`, 'GET');
      expect(ok.status, `call ${i + 1}`).toBe(200);
    }
    const refused = await send(`/trpc/${search.trpcName}?input=${input}`, 'GET');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const error = refused.body.error as { message: string; data: Record<string, unknown> };
    expect(error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429, error: 'rate_limited', retry_after: expect.any(Number) });
    expect(error.data.request_id).toBe(refused.headers.get('x-service-request-id'));
    const rest = await send(`${PUBLIC_BASE}/catalog/search?q=the`, 'GET');
    expect(rest.status).toBe(429);
    expect(rest.body).toEqual({ message: expect.any(String) });
  });

  it('refuses the 61st calendar call of a token over /trpc, then over REST: one bucket', async () => {
    const user = await makeUser(app, 'policy-calendar');
    const client = await makeApp(app, { scopes: ['profile:read'] });
    const t = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: 'profile:read' });
    const points = limitById('calendar').points;
    const input = `?input=${encodeURIComponent('{}')}`;
    for (let i = 0; i < points; i++) {
      const ok = await send(`/trpc/platform.titles.calendar${input}`, 'GET', { token: t });
      expect(ok.status, `call ${i + 1}`).toBe(200);
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(points - i - 1));
    }
    const refused = await send(`/trpc/platform.titles.calendar${input}`, 'GET', { token: t });
    expect(refused.status).toBe(429);
    expect((refused.body.error as { data: unknown }).data).toMatchObject({ httpStatus: 429, error: 'rate_limited', request_id: refused.headers.get('x-service-request-id') });
    const rest = await send(`${PLATFORM_BASE}/calendar`, 'GET', { token: t });
    expect(rest.status).toBe(429);
    expect(rest.body).toMatchObject({ error: 'rate_limited', request_id: rest.headers.get('x-service-request-id') });
    // A refused call spends nothing from the general buckets: the reads left are the 300 less the 60 that ran.
    const me = await send(`${PLATFORM_BASE}/me`, 'GET', { token: t });
    expect(me.headers.get('x-ratelimit-remaining')).toBe(String(limitById('token-reads').points - points - 1));
  });

  it('counts every call of a batch in the general buckets', async () => {
    const user = await makeUser(app, 'policy-batch');
    const client = await makeApp(app, { scopes: ['profile:read'] });
    const t = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: 'profile:read' });
    const names = ['platform.me.get', 'platform.me.get', 'platform.me.get'];
    const me = PROCEDURES.find((p) => p.trpcName === 'platform.me.get');
    expect(me, 'platform.me.get exists').toBeDefined();
    const batch = await send(`/trpc/${names.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, 'GET', { token: t });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('x-ratelimit-remaining')).toBe(String(limitById('token-reads').points - 3));
  });
});

describe('/trpc keeps the REST body caps', () => {
  const mutations = withRest.filter((p) => p.type === 'mutation');

  it.each(mutations.map((p) => [p.trpcName, p] as const))('%s: one byte over the cap is 413 on both transports', async (_name, p) => {
    const cap = p.meta.bodyLimit ?? BODY_LIMIT;
    const over = jsonOfSize(cap + 1);
    // A token of its own: the writes of the other tests must not fill the general buckets first.
    const client = await makeApp(app, { scopes: [...SCOPES], official: true });
    const t = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: SCOPES.join(' ') });
    const headers = { authorization: `Bearer ${t}`, 'content-type': 'application/json' };
    // A DELETE route takes no body on REST (its input is the path and query); on /trpc it is a POST.
    if (p.rest!.method !== 'DELETE') {
      const rest = await rawRequest(app.url, { method: p.rest!.method, path: `${base(p)}${samplePath(p)}`, headers, body: over });
      expect(rest.status).toBe(413);
      expect(rest.json()).toMatchObject(p.surface === 'platform' ? { error: 'payload_too_large' } : { message: expect.any(String) });
    }
    const trpc = await rawRequest(app.url, { method: 'POST', path: `/trpc/${p.trpcName}`, headers, body: over });
    expect(trpc.status).toBe(413);
    expect(trpc.json()).toMatchObject({ error: { data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413, error: 'payload_too_large', request_id: trpc.headers['x-service-request-id'] } } });
  });

  it.each([
    ['platform.lists.create', BODY_LIMIT],
    ['platform.sync.history', SYNC_BODY_LIMIT],
  ] as const)('%s: exactly the cap is read over /trpc', async (name, cap) => {
    const client = await makeApp(app, { scopes: [...SCOPES], official: true });
    const t = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: SCOPES.join(' ') });
    const headers = { authorization: `Bearer ${t}`, 'content-type': 'application/json' };
    const exact = await rawRequest(app.url, { method: 'POST', path: `/trpc/${name}`, headers, body: jsonOfSize(cap) });
    expect(exact.status).not.toBe(413);
    expect([400, 200]).toContain(exact.status);
  });
});

describe('request ids', () => {
  it('adopts a well-formed X-Request-Id (own form or UUID) and mints one otherwise', async () => {
    const own = 'req_AbCdEfGhIjKlMnOp';
    const uuid = '3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b';
    for (const given of [own, uuid]) {
      const res = await fetch(`${app.url}${PLATFORM_BASE}/me`, { headers: { 'x-request-id': given } });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-service-request-id')).toBe(given);
      expect(((await res.json()) as { request_id: string }).request_id).toBe(given);
    }
    for (const bad of ['req_short', 'hello world', `${uuid}x`, 'req_AbCdEfGhIjKlMnOp\nforged: 1', 'x'.repeat(200)]) {
      const res = await fetch(`${app.url}${PLATFORM_BASE}/me`, { headers: { 'x-request-id': bad.replace('\n', ' ') } });
      const id = res.headers.get('x-service-request-id');
      expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
      expect(id).not.toBe(bad);
      expect(((await res.json()) as { request_id: string }).request_id).toBe(id);
    }
  });
});
