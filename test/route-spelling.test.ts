// One spelling per route: a path written another way (a letter in another case, a trailing or doubled
// slash, a dot segment, a backslash, a percent-encoded letter, another case of the API base) reaches no
// handler, so no bucket or check keyed on a route can be walked around. Every route is walked: the
// Express routes read from the running app's router (OAuth provider endpoints and shims, pages, the
// event stream, documents), every procedure at its REST path and on /trpc. Then the review's attacks,
// with the limits on: the device endpoint spelled `/auth/device/Code`, the API base in capitals, the
// token endpoint as `/oauth/Token`.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../src/core/db/query-builder.ts';
import { LIMITS } from '../src/core/limits/table.ts';
import { createReceiver } from '../src/core/media-servers/receivers.ts';
import { PROCEDURES } from '../src/rpc/procedures.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { expressRoutes, type Route } from './helpers/routes.ts';

type Answer = { status: number; body: string; headers: http.IncomingHttpHeaders };

/** Sends the path exactly as written (fetch and `new URL` would resolve dot segments and backslashes). */
function send(app: TestApp, method: string, path: string, opts: { body?: string; address?: string } = {}): Promise<Answer> {
  const { port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const body = opts.body ?? (['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined);
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (opts.address) headers['x-forwarded-for'] = opts.address;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer of the app's catch-all: no handler took the request (the Trakt-compatible facade words it in `error_description`). */
function reachedNoRoute(a: Answer): boolean {
  if (a.status !== 404) return false;
  try {
    const body = JSON.parse(a.body) as { message?: unknown; error_description?: unknown };
    return /^No route for /.test(String(body.message ?? body.error_description));
  } catch {
    return false;
  }
}

/** Every procedure at its REST path. */
function restRoutes(): Route[] {
  return PROCEDURES.filter((p) => p.rest).map((p) => ({
    method: p.rest!.method,
    template: `/api/${p.surface}/v1${p.rest!.path.replace(/\{([^}]+)\}/g, ':$1')}`,
  }));
}

/** A template as a matcher of exact spellings (`:param` is one segment). */
function matcher(template: string): RegExp {
  return new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}$`);
}

/**
 * Sample values of parameters ('1' for the others). A media-server receiver's secret must open one: a
 * secret that opens none is answered as a path no route takes.
 */
const SAMPLES: Record<string, string> = { type: 'movie', username: 'nobody', kind: 'plex' };

/** The template with a sample value for each parameter. */
function instantiate(template: string): string {
  return template.replace(/:([A-Za-z_]+)/g, (_, name: string) => SAMPLES[name] ?? '1');
}

/** The path written other ways; the ones that spell another route exactly are left out (that route is their own). */
function variants(route: Route, all: Route[]): string[] {
  const path = instantiate(route.template);
  const segments = path.split('/');
  const statics = route.template.split('/').map((s, i) => (i > 0 && /^[a-z]/.test(s) ? i : -1)).filter((i) => i > 0);
  const out = new Set<string>([
    path.toUpperCase(),
    `${path}/`,
    path.replace(/^\/([^/]+)\//, '/$1//'),
    path.replace(/^\/([^/]+)\//, '/$1/./'),
    path.replace(/^\/([^/]+)\//, '/$1/x/../'),
    path.replace(/^\/([^/]+)\//, '/$1/%2e/'),
  ]);
  // A backslash for the last slash (a request target must start with one).
  if (segments.length > 2) out.add(path.replace(/\/([^/]+)$/, '\\$1'));
  if (path.startsWith('/api/')) {
    out.add(path.replace('/api/', '/API/'));
    out.add(path.replace(/^\/api\/(\w)/, (_m, c: string) => `/api/${c.toUpperCase()}`));
    out.add(path.replace(/\/v1\//, '/V1/'));
  }
  for (const i of statics) {
    const s = segments[i]!;
    const capital = [...segments];
    capital[i] = s[0]!.toUpperCase() + s.slice(1);
    out.add(capital.join('/'));
    const encoded = [...segments];
    encoded[i] = `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`;
    out.add(encoded.join('/'));
  }
  out.delete(path);
  // Express answers OPTIONS itself for a path any route of any method matches (its Allow header).
  return [...out].filter((v) => !all.some((r) => (route.method === 'OPTIONS' || r.method === route.method) && matcher(r.template).test(v)));
}

describe('every route answers only its own spelling', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    const user = await makeUser(app, 'spelling');
    const actor = { userId: user.id, clientId: 'test', scopes: new Set(['playback:write']), official: false };
    SAMPLES.secret = (await createReceiver(app.db.orm.em.fork(), actor, { label: 'Walk' }, app.url)).secret;
  });
  afterAll(() => app?.stop());

  it('reaches no handler through any other spelling, on every Express route and every procedure', async () => {
    const routes = [...expressRoutes(app), ...restRoutes()];
    // The walk sees the routes that count a bucket of their own: the provider's and the shims'
    // endpoints, the event stream, the forms, and every procedure naming limits.
    const templates = new Set(routes.map((r) => `${r.method} ${r.template}`));
    for (const limit of LIMITS) for (const r of limit.routes ?? []) expect(templates, limit.id).toContain(r.replace(' ', ' /api/platform/v1'));
    for (const p of PROCEDURES.filter((x) => x.meta.limits?.length && x.rest)) {
      expect(templates).toContain(`${p.rest!.method} /api/${p.surface}/v1${p.rest!.path.replace(/\{([^}]+)\}/g, ':$1')}`);
    }
    const misses: string[] = [];
    let sent = 0;
    for (const route of routes) {
      // The spelling the route is written in reaches it (or its handler's own answer).
      const own = await send(app, route.method, instantiate(route.template));
      if (reachedNoRoute(own)) misses.push(`${route.method} ${instantiate(route.template)} (its own spelling) reached no route`);
      for (const v of variants(route, routes)) {
        const a = await send(app, route.method, v);
        sent++;
        if (!reachedNoRoute(a)) misses.push(`${route.method} ${v} -> ${a.status} ${a.body.slice(0, 120)}`);
      }
    }
    expect(misses).toEqual([]);
    expect(sent).toBeGreaterThan(1000);
  });

  it('calls a /trpc procedure only by its exact name', async () => {
    const misses: string[] = [];
    for (const p of PROCEDURES) {
      const method = p.type === 'mutation' ? 'POST' : 'GET';
      const [surface, ...rest] = p.trpcName.split('.');
      const capital = `${surface![0]!.toUpperCase()}${surface!.slice(1)}.${rest.join('.')}`;
      for (const v of [`/TRPC/${p.trpcName}`, `/Trpc/${p.trpcName}`, `/trpc/${p.trpcName}/`, `/trpc//${p.trpcName}`, `/trpc/${p.trpcName.toUpperCase()}`, `/trpc/${capital}`]) {
        const a = await send(app, method, v);
        // tRPC's own NOT_FOUND (a name it does not know) or the app's catch-all.
        const notFound = a.status === 404 && (reachedNoRoute(a) || /NOT_FOUND/.test(a.body));
        if (!notFound) misses.push(`${method} ${v} -> ${a.status} ${a.body.slice(0, 120)}`);
      }
    }
    expect(misses).toEqual([]);
  });
});

describe('the review\'s attacks, with the limits on', () => {
  let app: TestApp;
  let publicClient: string;
  let confidential: { client_id: string };
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
    publicClient = (await makeApp(app, { scopes: ['profile:read', 'history:read'] })).client_id;
    confidential = await makeApp(app, { confidential: true });
  });
  afterAll(() => app?.stop());

  let nextAddress = 1;
  const freshAddress = () => `198.18.7.${nextAddress++}`;
  const deviceCodes = async () =>
    Number((await db(app.db.orm.em.fork()).selectFrom('oauth_artifact').select((e) => e.fn.countAll().as('n')).where('model', '=', 'DeviceCode').executeTakeFirstOrThrow()).n);

  it('POST /auth/device/Code, .../code/ and /API/... store no device code and leave the bucket whole', async () => {
    const address = freshAddress();
    const body = JSON.stringify({ client_id: publicClient });
    for (const path of ['/api/platform/v1/auth/device/Code', '/api/platform/v1/auth/device/code/', '/API/platform/v1/auth/device/code', '/api/platform/v1/AUTH/DEVICE/CODE']) {
      for (let i = 0; i < 12; i++) {
        const a = await send(app, 'POST', path, { body, address });
        expect(reachedNoRoute(a), `${path}: ${a.status} ${a.body}`).toBe(true);
      }
    }
    expect(await deviceCodes()).toBe(0);
    // The spelling of the docs: 10 an hour, then 429 (the variants spent nothing of it).
    for (let i = 0; i < 10; i++) expect((await send(app, 'POST', '/api/platform/v1/auth/device/code', { body, address })).status).toBe(200);
    const refused = await send(app, 'POST', '/api/platform/v1/auth/device/code', { body, address });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await deviceCodes()).toBe(10);
  });

  it('a scope outside the app is refused on the one spelling, and the variant reaches nothing', async () => {
    const body = JSON.stringify({ client_id: publicClient, scope: 'profile:read nonsense' });
    const variant = await send(app, 'POST', '/api/platform/v1/auth/device/Code', { body, address: freshAddress() });
    expect(reachedNoRoute(variant)).toBe(true);
    const own = await send(app, 'POST', '/api/platform/v1/auth/device/code', { body, address: freshAddress() });
    expect(own.status).toBe(400);
    expect(JSON.parse(own.body)).toMatchObject({ error: 'invalid_scope' });
  });

  it('the token endpoint spelled /oauth/Token, /OAUTH/TOKEN or /oauth/token/ checks no secret and counts nowhere', async () => {
    const address = freshAddress();
    const wrongSecret = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: confidential.client_id, client_secret: 'wrong' }).toString();
    for (const path of ['/api/platform/v1/oauth/Token', '/api/platform/v1/OAUTH/TOKEN', '/api/platform/v1/oauth/token/', '/API/PLATFORM/V1/OAUTH/TOKEN']) {
      for (let i = 0; i < 25; i++) {
        const a = await new Promise<Answer>((resolve, reject) => {
          const { port } = new URL(app.url);
          const req = http.request(
            { host: '127.0.0.1', port, method: 'POST', path, agent: false, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address } },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
            },
          );
          req.on('error', reject);
          req.end(wrongSecret);
        });
        expect(reachedNoRoute(a), `${path}: ${a.status} ${a.body}`).toBe(true);
      }
    }
    // The refresh bucket of this address is untouched: 20 an hour on the one spelling.
    for (let i = 0; i < 20; i++) expect((await send(app, 'POST', '/api/platform/v1/auth/refresh', { body: JSON.stringify({ client_id: publicClient, refresh_token: 'x' }), address })).status).toBe(400);
    expect((await send(app, 'POST', '/api/platform/v1/auth/refresh', { body: JSON.stringify({ client_id: publicClient, refresh_token: 'x' }), address })).status).toBe(429);
  });
});
