// Both OpenAPI documents: valid OpenAPI 3.1 by a real validator, the contract's version, every error
// response referencing the error envelope, an example on every answer, described tags, and security:
// the `oauth2` scheme at the authorization server's real endpoints, and on every operation the scopes
// the service really enforces. The typed sync shapes hold the service's real answers.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import { Json as JsonParser } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../src/core/apps/scopes.ts';
import { CHANGE_RESOURCES } from '../src/core/changes/resources.ts';
import { ERROR_CODES, statusOf, type ErrorCode } from '../src/core/errors.ts';
import { EXPORT_SCOPES } from '../src/rpc/routers/export.ts';
import { parseItems } from '../src/rpc/routers/sync.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { newKey, settled } from './helpers/sync-client.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

type Media = { schema: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> };
type Response = { description?: string; content?: Record<string, Media>; headers?: Record<string, { example?: unknown }> };
type Operation = {
  operationId: string;
  tags?: string[];
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
};
type Doc = {
  openapi: string;
  info: { version: string; description: string; license?: { name: string; identifier?: string } };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes?: Record<string, Record<string, unknown>> };
};

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, method, op })));
const getDoc = async (path: string) => (await (await fetch(`${app.url}${path}`)).json()) as Doc;

describe.each([
  ['platform', '/api/platform/v1/openapi.json', '#/components/schemas/Error'],
  ['public', '/api/public/v1/openapi.json', '#/components/schemas/PublicError'],
])('%s document', (_name, path, envelopeRef) => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await fetch(`${app.url}${path}`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(validator.version).toBe('3.1');
  });

  it('carries the contract version', () => {
    expect(doc.info.version).toBe('1.0.0-beta.4');
  });

  it('references the envelope from every error response', () => {
    let errors = 0;
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status.startsWith('2') || status.startsWith('3')) continue;
          errors++;
          // The authorization page's refusals of a person's browser are HTML pages only.
          if (!response.content?.['application/json']) expect(Object.keys(response.content ?? {}), `${op.operationId} ${status}`).toEqual(['text/html']);
          else expect(response.content['application/json'].schema.$ref).toBe(envelopeRef);
        }
      }
    }
    if (Object.keys(doc.paths).length) expect(errors).toBeGreaterThan(0);
  });

  it('has the license, unique operationIds, and a description for every tag it uses', () => {
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const ids = operations(doc).map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const used = new Set(operations(doc).flatMap((o) => o.op.tags ?? []));
    expect(used.size).toBeGreaterThan(0);
    expect(new Set(doc.tags?.map((t) => t.name))).toEqual(used);
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toMatch(/\w/);
  });

  it('has an example answer on every response of every operation', () => {
    for (const { route, op } of operations(doc)) {
      let answers = 0;
      for (const [status, response] of Object.entries(op.responses)) {
        // A 304 (the calendar feed) sends no body and goes nowhere: its ETag is what it says.
        if (status === '304') expect(response.headers?.ETag, `${route} 304 ETag`).toBeDefined();
        else if (status.startsWith('3')) {
          expect(response.headers?.Location?.example, `${route} ${status} Location`).toEqual(expect.any(String));
          answers++;
        }
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect(media.example !== undefined || Object.keys(media.examples ?? {}).length > 0, `${route} ${status} ${type}`).toBe(true);
          answers++;
        }
      }
      expect(answers, route).toBeGreaterThan(0);
    }
  });

  it('declares the security of every operation', () => {
    for (const { route, op } of operations(doc)) expect(Array.isArray(op.security), route).toBe(true);
  });
});

describe('platform document', () => {
  it('describes the OAuth and device endpoints and /me', async () => {
    const doc = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as Doc;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/oauth/authorize', '/oauth/token', '/oauth/revoke', '/auth/device/code', '/auth/device/token', '/auth/refresh', '/me']),
    );
  });
});

describe('rate limits in the documents', () => {
  it('name the buckets of each operation, from the limits table', async () => {
    const platform = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const pub = (await (await fetch(`${app.url}/api/public/v1/openapi.json`)).json()) as typeof platform;
    const buckets = (op: Record<string, unknown> | undefined) => (op?.['x-rate-limits'] as Array<{ bucket: string; limit: number }>).map((l) => `${l.bucket}:${l.limit}`).sort();
    expect(buckets(pub.paths['/catalog/search']?.get)).toEqual(['public-search:60']);
    expect(buckets(pub.paths['/catalog/discover']?.get)).toEqual(['public-discover:90']);
    expect(buckets(platform.paths['/me']?.get)).toEqual(['app:6000', 'token-reads:300']);
    expect(buckets(platform.paths['/auth/device/code']?.post)).toEqual(['device-code:10', 'unauthenticated:300']);
    // A refresh or a device poll sent to the token endpoint counts in the bucket of its own endpoint too.
    expect(buckets(platform.paths['/oauth/token']?.post)).toEqual(['device-token:200', 'refresh:20', 'token-admission:180', 'token-client:120', 'unauthenticated:300']);
    expect(buckets(platform.paths['/me/connected-apps/{clientId}']?.delete)).toEqual(['app:6000', 'token-writes:120']);
    expect(String(pub.paths['/catalog/search']?.get?.description)).toContain('60 per minute per client address');
  });
});

describe('public document', () => {
  it('lists the catalog routes', async () => {
    const doc = (await (await fetch(`${app.url}/api/public/v1/openapi.json`)).json()) as Doc;
    expect(Object.keys(doc.paths).sort()).toEqual(expect.arrayContaining(['/catalog/discover', '/catalog/search', '/catalog/trending']));
  });
});

describe('reference page', () => {
  it('serves /docs and its assets from the installed package', async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${app.url}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    const init = await (await fetch(`${app.url}/docs/init.js`)).text();
    expect(init).toContain('/api/platform/v1/openapi.json');
    expect(init).toContain('/api/public/v1/openapi.json');
  });
});

describe('security of the platform document', () => {
  let doc: Doc;
  beforeAll(async () => {
    doc = await getDoc('/api/platform/v1/openapi.json');
  });

  it('has one oauth2 scheme: PKCE code flow at the endpoints the server announces (RFC 8414), the 16 scopes, the device flow', async () => {
    const meta = (await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const schemes = doc.components.securitySchemes!;
    expect(Object.keys(schemes).sort()).toEqual(['calendarFeedToken', 'eventsTicket', 'oauth2']);
    const oauth2 = schemes.oauth2 as { type: string; flows: Record<string, Record<string, unknown>>; 'x-device-authorization': Record<string, unknown> };
    expect(oauth2.type).toBe('oauth2');
    expect(Object.keys(oauth2.flows)).toEqual(['authorizationCode']);
    const code = oauth2.flows.authorizationCode!;
    expect(code.authorizationUrl).toBe(meta.authorization_endpoint);
    expect(code.tokenUrl).toBe(meta.token_endpoint);
    expect(code.refreshUrl).toBe(meta.token_endpoint);
    expect(code.scopes).toEqual(SCOPE_DESCRIPTIONS);
    expect(Object.keys(code.scopes as object)).toEqual([...SCOPES]);
    expect(meta.scopes_supported).toEqual([...SCOPES]);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    const device = oauth2['x-device-authorization'];
    expect(device.deviceAuthorizationUrl).toBe(meta.device_authorization_endpoint);
    expect(device.tokenUrl).toBe(`${app.url}/api/platform/v1/auth/device/token`);
    expect(device.refreshUrl).toBe(`${app.url}/api/platform/v1/auth/refresh`);
  });

  it('names the scope of every bearer call, none on the OAuth and device endpoints', () => {
    const of = (route: string) => operations(doc).find((o) => o.route === route)!.op;
    expect(of('POST /lists').security).toEqual([{ oauth2: ['lists:write'] }]);
    expect(of('GET /me').security).toEqual([{ oauth2: ['profile:read'] }]);
    expect(of('POST /sync/watchlist').security).toEqual([{ oauth2: ['lists:write'] }]);
    const readScopes = [...new Set(Object.values(CHANGE_RESOURCES))];
    expect(of('GET /me/sync/changes').security).toEqual(readScopes.map((s) => ({ oauth2: [s] })));
    expect(of('GET /me/sync/snapshot').security).toEqual(readScopes.map((s) => ({ oauth2: [s] })));
    // Any other resource is a 404, for a token that could write one of the three.
    expect(of('POST /sync/{resource}').security).toEqual([{ oauth2: ['history:write'] }, { oauth2: ['ratings:write'] }, { oauth2: ['lists:write'] }]);
    expect(of('GET /playback/events').security).toEqual([{ oauth2: ['events:read'] }, { eventsTicket: [] }]);
    // The calendar feed: its own token only, no access token.
    expect(of('GET /me/calendar.ics').security).toEqual([{ calendarFeedToken: [] }]);
    expect(of('GET /me/calendar.ics').description).toMatch(/^\*\*No access token: the token of its own URL\.\*\*/);
    expect(of('POST /lists').description).toMatch(/^\*\*Scope: `lists:write`\.\*\*/);
    // The full export reads every resource: one requirement naming all the read scopes it needs.
    expect(of('GET /me/export').security).toEqual([{ oauth2: [...EXPORT_SCOPES] }]);
    expect(of('GET /me/export').description).toMatch(/^\*\*Scopes: all of `profile:read`, `history:read`, /);
    for (const route of ['GET /oauth/authorize', 'POST /oauth/authorize', 'POST /oauth/token', 'POST /oauth/revoke', 'POST /auth/device/code', 'POST /auth/device/token', 'POST /auth/refresh']) {
      expect(of(route).security, route).toEqual([]);
    }
    for (const { route, op } of operations(doc)) {
      for (const requirement of op.security!) {
        for (const [scheme, scopes] of Object.entries(requirement)) {
          expect(['oauth2', 'eventsTicket', 'calendarFeedToken'], route).toContain(scheme);
          if (route !== 'GET /me/export') expect(scopes.length, route).toBeLessThanOrEqual(1);
          for (const scope of scopes) expect(SCOPES, route).toContain(scope);
        }
      }
    }
  });

  it('names exactly the scope the service enforces: a token without it gets 403 insufficient_scope naming it', async () => {
    const tokens = new Map<string, string>();
    for (const scope of ['events:read', 'trophies:read']) tokens.set(scope, (await member(app, `scopeless-${scope.replace(':', '-')}`, [scope])).token);
    const QUERY: Record<string, string> = { resource: 'history' };
    const PATH: Record<string, string> = { type: 'movie', action: 'start', username: 'nobody', clientId: 'app_unknown' };
    let checked = 0;
    for (const { route, path, method, op } of operations(doc)) {
      const scopes = (op.security ?? []).flatMap((r) => r.oauth2 ?? []);
      if (scopes.length === 0) continue;
      const [held, token] = [...tokens].find(([scope]) => !scopes.includes(scope))!;
      const query = new URLSearchParams((op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p): [string, string] => [p.name, QUERY[p.name] ?? '1']));
      const url = `${path.replace(/\{([^}]+)\}/g, (_m, name: string) => PATH[name] ?? '1')}${query.size ? `?${query}` : ''}`;
      const res = await platform(app, token, method.toUpperCase(), url, method === 'get' || method === 'delete' ? undefined : {});
      expect([res.status, res.body.error], `${route} with only ${held}`).toEqual([403, 'insufficient_scope']);
      expect(scopes, `${route}: required_scope`).toContain(res.body.required_scope);
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  });
});

describe('errors in the documents', () => {
  let platformDoc: Doc;
  let publicDoc: Doc;
  beforeAll(async () => {
    platformDoc = await getDoc('/api/platform/v1/openapi.json');
    publicDoc = await getDoc('/api/public/v1/openapi.json');
  });
  const statuses = (doc: Doc, route: string) => Object.keys(operations(doc).find((o) => o.route === route)!.op.responses);
  /** The codes each error status of an operation lists: its examples, one per code. */
  const codes = (doc: Doc, route: string) =>
    Object.fromEntries(
      Object.entries(operations(doc).find((o) => o.route === route)!.op.responses)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, r]) => [status, Object.keys(r.content?.['application/json']?.examples ?? {})]),
    );

  it('type the envelope: `error` is one of the service\'s codes; the public body is the message alone', () => {
    expect((platformDoc.components.schemas.Error!.properties as Record<string, unknown>).error).toMatchObject({ type: 'string', enum: ERROR_CODES });
    expect(publicDoc.components.schemas.PublicError).toMatchObject({ required: ['message'], properties: { message: { type: 'string' } }, additionalProperties: false });
  });

  it('give every error response one example per code it carries, in the envelope, at the code\'s status', () => {
    let examples = 0;
    for (const doc of [platformDoc, publicDoc]) {
      for (const { route, op } of operations(doc)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const media = response.content?.['application/json'];
          if (Number(status) < 400 || !media) continue;
          const named = Object.entries(media.examples ?? {});
          expect(named.length, `${route} ${status}`).toBeGreaterThan(0);
          for (const [code, example] of named) {
            expect(ERROR_CODES, `${route} ${status}`).toContain(code);
            // Node's refusal of an over-long request line (431) and a stream's outage (503) keep the code of their kind.
            if (status !== '431' && status !== '503') expect(statusOf(code as ErrorCode), `${route}: ${code}`).toBe(Number(status));
            const value = example.value as Record<string, unknown>;
            if (doc === publicDoc) expect(Object.keys(value), route).toEqual(['message']);
            else {
              expect(value.error, `${route} ${status}`).toBe(code);
              expect(response.description, `${route} ${status}`).toContain(`\`${code}\``);
            }
            examples++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(500);
  });

  it('list what each operation can answer, not a blanket list', () => {
    // The idempotent bulk writes: their key's conflicts; any other resource: 404.
    for (const resource of ['history', 'ratings', 'watchlist']) {
      expect(codes(platformDoc, `POST /sync/${resource}`)['409']).toEqual(['idempotency_conflict', 'request_in_progress']);
      expect(statuses(platformDoc, `POST /sync/${resource}`)).not.toContain('404');
    }
    expect(codes(platformDoc, 'POST /sync/{resource}')['404']).toEqual(['not_found']);
    // The list writes that meet a dynamic, external or watch list.
    for (const route of ['PATCH /lists/{id}', 'DELETE /lists/{id}', 'POST /lists/{id}/items', 'DELETE /lists/{id}/items/{itemId}', 'POST /lists/{id}/items/reorder', 'POST /lists/{id}/collaborators']) {
      expect(codes(platformDoc, route)['409'], route).toEqual(['conflict']);
    }
    for (const route of ['GET /me/watchlist', 'GET /lists/{id}', 'POST /lists/{id}/like', 'POST /lists']) expect(statuses(platformDoc, route), route).not.toContain('409');
    // Playback: the session's state and the title it names.
    expect(codes(platformDoc, 'POST /playback/{action}')).toMatchObject({ '409': ['playback_state_conflict'], '422': ['media_not_found'] });
    // A title named in the body that is not in the catalog.
    for (const route of ['POST /ratings', 'POST /favourites', 'POST /watch-history', 'POST /me/collection']) expect(codes(platformDoc, route)['404'], route).toEqual(['not_found']);
    // From the policy: a token (401), its scope (403), official apps only, a body (408, 413), parameters (431).
    expect(statuses(platformDoc, 'GET /me')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(codes(platformDoc, 'GET /me')['403']).toEqual(['insufficient_scope']);
    expect(codes(platformDoc, 'GET /me/connected-apps')['403']).toEqual(['insufficient_scope', 'first_party_only']);
    expect(statuses(platformDoc, 'POST /lists')).toEqual(['200', '400', '401', '403', '408', '413', '429', '500', '503']);
    expect(statuses(platformDoc, 'GET /lists/{id}')).toEqual(['200', '400', '401', '403', '404', '429', '431', '500', '503']);
    expect(statuses(publicDoc, 'GET /catalog/search')).toEqual(['200', '400', '429', '431', '500', '503']);
    expect(statuses(publicDoc, 'GET /users/{username}')).toEqual(['200', '400', '404', '429', '431', '500', '503']);
    // The routes written by hand: the provider's codes; the stream's outage.
    expect(codes(platformDoc, 'POST /auth/device/token')['400']).toEqual(expect.arrayContaining(['authorization_pending', 'slow_down', 'expired', 'access_denied']));
    expect(codes(platformDoc, 'GET /playback/events')['503']).toEqual(['server_error']);
    // While the service starts, its port answers every request 503 (the port is claimed before the slow work).
    for (const doc of [platformDoc, publicDoc]) {
      for (const [template, item] of Object.entries(doc.paths ?? {})) {
        for (const [method, op] of Object.entries(item as Record<string, { responses?: Record<string, unknown> }>)) {
          if (op.responses) expect(Object.keys(op.responses), `${method.toUpperCase()} ${template}`).toContain('503');
        }
      }
    }
  });

  it('answer the catch-all sync route as they say: 403 without a sync write scope, 404 with one', async () => {
    const writer = await member(app, 'sync-writer', ['history:write']);
    const reader = await member(app, 'sync-reader', ['history:read']);
    const other = await platform(app, writer.token, 'POST', '/sync/collection', { items: [] });
    expect([other.status, other.body.error]).toEqual([404, 'not_found']);
    const refused = await platform(app, reader.token, 'POST', '/sync/collection', { items: [] });
    expect([refused.status, refused.body.error, refused.body.required_scope]).toEqual([403, 'insufficient_scope', 'history:write']);
  });
});

describe('public document security', () => {
  it('needs no token anywhere and declares no scheme', async () => {
    const doc = await getDoc('/api/public/v1/openapi.json');
    expect(doc.components.securitySchemes).toBeUndefined();
    for (const { route, op } of operations(doc)) expect(op.security, route).toEqual([]);
  });
});

describe('typed sync shapes', () => {
  let doc: Doc;
  let alice: Member;
  beforeAll(async () => {
    doc = await getDoc('/api/platform/v1/openapi.json');
    await seedCatalog(app, { shows: 1 });
  });

  it('document each bulk body with its item schema, and the change feed as a oneOf on resource', () => {
    for (const resource of ['history', 'ratings', 'watchlist']) {
      const name = `${resource[0]!.toUpperCase()}${resource.slice(1)}`;
      expect(doc.paths[`/sync/${resource}`]!.post!.requestBody!.content['application/json']!.schema).toEqual({ $ref: `#/components/schemas/${name}SyncRequest` });
      const body = doc.components.schemas[`${name}SyncRequest`] as { properties: { items: { items: unknown; minItems: number; maxItems: number } } };
      expect(body.properties.items).toMatchObject({ items: { $ref: `#/components/schemas/${name}SyncItem` }, minItems: 1, maxItems: 100 });
    }
    expect(Object.keys((doc.components.schemas.HistorySyncItem as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['client_item_id', 'movie_db_id', 'watched_at', 'film_db_id', 'tv_db_id', 'anime_db_id', 'season', 'episode', 'runtime_minutes']),
    );
    const feed = doc.paths['/me/sync/changes']!.get!.responses['200']!.content!['application/json']!.schema as { properties: { changes: { items: unknown } } };
    expect(feed.properties.changes.items).toEqual({ $ref: '#/components/schemas/Change' });
    const change = doc.components.schemas.Change as { oneOf: Array<{ $ref: string }>; discriminator: { propertyName: string; mapping: Record<string, string> } };
    expect(change.discriminator.propertyName).toBe('resource');
    expect(Object.keys(change.discriminator.mapping).sort()).toEqual(Object.keys(CHANGE_RESOURCES).sort());
    expect(change.oneOf.map((o) => o.$ref).sort()).toEqual(Object.values(change.discriminator.mapping).sort());
    const history = doc.components.schemas.HistoryChange as { properties: { resource: unknown; data: unknown } };
    expect(history.properties.resource).toEqual({ type: 'string', const: 'history' });
    expect(history.properties.data).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/HistoryItem' }, { type: 'null' }] });
    const snapshot = doc.paths['/me/sync/snapshot']!.get!.responses['200']!.content!['application/json']!.schema as { properties: { items: { items: unknown } } };
    expect(snapshot.properties.items.items).toEqual({ $ref: '#/components/schemas/SyncRecord' });
  });

  it('show request examples the run-time item check reads as the answer examples say', () => {
    for (const resource of ['history', 'ratings', 'watchlist'] as const) {
      const op = doc.paths[`/sync/${resource}`]!.post!;
      const items = (op.requestBody!.content['application/json']!.example as { items: unknown[] }).items;
      const answer = op.responses['200']!.content!['application/json']!.example as { results: Array<{ status: string; error: string | null }> };
      const parsed = parseItems(resource, items).items;
      expect(parsed.map((i) => (i.ok ? 'valid' : i.error)), resource).toEqual(answer.results.map((r) => (r.status === 'invalid' ? r.error : 'valid')));
    }
  });

  it('hold the service\'s real answers (Spectral checks them as examples)', async () => {
    alice = await member(app, 'feed-alice', ['history:read', 'history:write', 'ratings:read', 'ratings:write', 'lists:read', 'lists:write', 'collection:read', 'collection:write', 'profile:read', 'profile:write', 'notifications:read', 'notifications:write', 'trophies:read', 'playback:read', 'playback:write']);
    const bob = await member(app, 'feed-bob', ['lists:write']);
    const ok = async (res: Promise<{ status: number; body: Record<string, unknown> }>) => {
      const answer = await res;
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    const call = (method: string, path: string, body?: unknown, token = alice.token, headers: Record<string, string> = {}) => ok(platform(app, token, method, path, body, headers));
    const answers: Record<string, unknown> = {};
    answers['POST /sync/history'] = await call('POST', '/sync/history', { items: [{ client_item_id: 'a', movie_db_id: SPIRITED_AWAY, watched_at: '2025-05-03T19:42:11Z' }, { client_item_id: 'b', movie_db_id: 999999999 , watched_at: '2025-05-03T19:42:11Z' }, { client_item_id: 'c', watched_at: 'no' }] }, alice.token, { 'idempotency-key': newKey() });
    await call('POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 });
    await call('POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY });
    await call('PUT', `/show-status/movie/${SPIRITED_AWAY}`, { status: 'completed' });
    const list = await call('POST', '/lists', { name: 'Feed list', isPublic: true });
    await call('POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
    await call('POST', `/lists/${list.id}/like`, {}, bob.token);
    await call('POST', `/lists/${list.id}/like`, {});
    await call('POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray' });
    await call('POST', '/playback/start', { event_id: 'feed-1', event_created_at: Date.now() - 60_000, media_type: 'movie', title: 'Spirited Away', movie_db_id: SPIRITED_AWAY, playback_session_id: 'feed-session', progress: 0.3, duration_seconds: 7500 });
    await call('PATCH', '/me/profile', { bio: 'Feed' });
    await call('PATCH', '/me/preferences', { region: 'us' });
    await call('PATCH', '/me/notification-preferences', { list_liked: { push: false } });
    await call('GET', '/me/trophies');
    await settled(app, alice.userId);
    const feed = (answers['GET /me/sync/changes'] = await call('GET', '/me/sync/changes?limit=1000')) as { changes: Array<{ resource: string }> };
    const seen = new Set(feed.changes.map((c) => c.resource));
    expect([...seen].sort()).toEqual(Object.keys(CHANGE_RESOURCES).sort());
    for (const resource of Object.keys(CHANGE_RESOURCES)) answers[`GET /me/sync/snapshot?resource=${resource}`] = await call('GET', `/me/sync/snapshot?resource=${resource}&limit=1000`);

    // The real answers become examples of the operations' success schemas; Spectral validates every
    // example against its schema.
    const paths: Record<string, Record<string, Operation>> = {};
    for (const [route, body] of Object.entries(answers)) {
      const [method, target] = route.split(' ') as [string, string];
      const op = doc.paths[target.split('?')[0]!]![method.toLowerCase()]!;
      const schema = op.responses['200']!.content!['application/json']!.schema;
      paths[`/probe/${Object.keys(paths).length}`] = {
        [method.toLowerCase()]: { ...op, operationId: `probe-${Object.keys(paths).length}`, responses: { '200': { description: route, content: { 'application/json': { schema, example: body } } } } },
      };
    }
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const results = await spectral.run(new Document(JSON.stringify({ ...doc, paths }), JsonParser, 'probe.json'));
    const mismatches = results.filter((r) => r.code === 'oas3-valid-media-example').map((r) => `${r.path.join('.')}: ${r.message}`);
    expect(mismatches).toEqual([]);
  });
});
