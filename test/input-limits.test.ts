// Inputs never reach PostgreSQL raw, over real HTTP on every transport (REST facade, /trpc, OAuth): a
// NUL character anywhere in a request, an id past what the column holds, a date PostgreSQL cannot read,
// a forged cursor and JSON nested deeper than 64 levels are each a 400 `invalid_request`, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { encodeCursor } from '../src/core/paging/cursor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import * as http from './helpers/http.ts';
import { rawRequest, type Answer } from './helpers/http.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'limits', [...SCOPES]);
});
afterAll(() => app?.stop());

const NUL_MESSAGE = (field: string) => `${field}: must not contain the NUL character (\\u0000)`;

/** Any call as alice, the body sent as given (a string is sent as is). */
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
  http.call(app, path, { method, token: alice.token, body, headers });

function expectRefusal(res: Answer, message: string): void {
  expectError(res, 400, 'invalid_request');
  expect(res.body.message).toBe(message);
}

/** A tRPC error answer: its status, machine code and message. */
function trpcError(res: Answer): { status: number; error: unknown; message: unknown } {
  const error = res.body.error as { message?: unknown; data?: { error?: unknown } } | undefined;
  return { status: res.status, error: error?.data?.error, message: error?.message };
}

/** A refusal on /trpc: tRPC's error shape, carrying the envelope's code and request id in `data`. */
function expectTrpcRefusal(res: Answer, message: string): void {
  expect(trpcError(res)).toEqual({ status: 400, error: 'invalid_request', message });
  expect((res.body.error as { data: { request_id: unknown } }).data.request_id).toBe(res.headers.get('x-service-request-id'));
}

const trpcGet = (procedure: string, input: string) => `/trpc/${procedure}?input=${encodeURIComponent(input)}`;

describe('a NUL character', () => {
  it('in a JSON body value is refused naming the field, and nothing is written', async () => {
    expectRefusal(await platform(app, alice.token, 'POST', '/lists', { name: 'a\u0000b' }), NUL_MESSAGE('name'));
    const mine = await platform(app, alice.token, 'GET', '/me/lists');
    expect(mine.body.items).toEqual([]);
  });

  it('deep inside a body (a bulk item, validated later one by one) names its path', async () => {
    const items = [{ movie_db_id: SPIRITED_AWAY, watched_at: '2024-01-01T00:00:00Z' }, { title: 'x\u0000', watched_at: '2024-01-01T00:00:00Z' }];
    expectRefusal(await platform(app, alice.token, 'POST', '/sync/history', { items }, { 'idempotency-key': 'nul-in-a-bulk-item' }), NUL_MESSAGE('items.1.title'));
  });

  it('in a JSON key is refused too', async () => {
    expectRefusal(await platform(app, alice.token, 'POST', '/lists', { name: 'ok', 'no\u0000te': 1 }), NUL_MESSAGE('no\\u0000te'));
  });

  it('in a query string: platform envelope and public {message}', async () => {
    expectRefusal(await platform(app, alice.token, 'GET', '/me/history?cursor=%00'), NUL_MESSAGE('cursor'));
    const res = await rawRequest(app.url, { method: 'GET', path: '/api/public/v1/catalog/search?q=spirited%00' });
    expect({ status: res.status, body: res.json() }).toEqual({ status: 400, body: { message: NUL_MESSAGE('q') } });
  });

  it('in a path parameter', async () => {
    expectRefusal(await platform(app, alice.token, 'DELETE', '/me/connected-apps/app%00x'), NUL_MESSAGE('path'));
    const res = await rawRequest(app.url, { method: 'GET', path: '/api/public/v1/users/a%00b' });
    expect({ status: res.status, body: res.json() }).toEqual({ status: 400, body: { message: NUL_MESSAGE('path') } });
  });

  it('in the form and JSON bodies of the OAuth endpoints (Express routes, not procedures)', async () => {
    const form = await fetch(`${app.url}/api/platform/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&client_id=a%00b&refresh_token=x',
    });
    expectRefusal({ status: form.status, body: (await form.json()) as Record<string, unknown>, headers: form.headers }, NUL_MESSAGE('client_id'));
    expectRefusal(await platform(app, null, 'POST', '/auth/device/code', { client_id: 'a\u0000b' }), NUL_MESSAGE('client_id'));
  });

  it('on /trpc: a call body, a batch body and the JSON input of a GET call', async () => {
    expectTrpcRefusal(await call('POST', '/trpc/platform.lists.create', { name: 'a\u0000b' }), NUL_MESSAGE('name'));
    expectTrpcRefusal(await call('POST', '/trpc/platform.lists.create?batch=1', { 0: { name: 'a\u0000b' } }), NUL_MESSAGE('0.name'));
    expectTrpcRefusal(await call('GET', trpcGet('public.catalog.search', JSON.stringify({ q: 'a\u0000b' }))), NUL_MESSAGE('q'));
  });
});

describe('integer ids', () => {
  const TOO_BIG = 'Too big: expected number to be <=2147483647';
  // Past 2^53 a number is no longer exactly an integer in JavaScript: zod says both.
  const UNSAFE = (field: string) => `${field}: must be an integer; ${field}: ${TOO_BIG}`;

  it('in a path: 2147483647 is looked up (404), 2147483648 and beyond are 400', async () => {
    expectError(await platform(app, alice.token, 'GET', '/lists/2147483647'), 404, 'not_found');
    expectRefusal(await platform(app, alice.token, 'GET', '/lists/2147483648'), `id: ${TOO_BIG}`);
    expectRefusal(await platform(app, alice.token, 'DELETE', '/watch-history/4294967296'), `id: ${TOO_BIG}`);
    expectRefusal(await platform(app, alice.token, 'DELETE', '/me/continue-watching/99999999999999999999999'), UNSAFE('id'));
    expectRefusal(await platform(app, alice.token, 'DELETE', '/favourites/movie/2147483648'), `movieDbId: ${TOO_BIG}`);
  });

  it('in a JSON body: the same bound', async () => {
    const list = await platform(app, alice.token, 'POST', '/lists', { name: 'Ids' });
    expect(list.status).toBe(200);
    const ok = await platform(app, alice.token, 'POST', `/lists/${list.body.id}/items`, { items: [{ type: 'movie', movieDbId: 2_147_483_647 }] });
    expect({ status: ok.status, body: ok.body }).toEqual({ status: 200, body: { results: [{ type: 'movie', movieDbId: 2_147_483_647, status: 'not_found', item: null }] } });
    expectRefusal(await platform(app, alice.token, 'POST', `/lists/${list.body.id}/items`, { items: [{ type: 'movie', movieDbId: 2_147_483_648 }] }), `items.0.movieDbId: ${TOO_BIG}`);
    expectRefusal(await platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: 1e300, format: 'dvd' }), UNSAFE('movieDbId'));
    expectRefusal(await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: 2 ** 40, rating: 5 }), `movieDbId: ${TOO_BIG}`);
  });

  it('in a bulk item: that item is invalid, the others apply', async () => {
    const items = [
      { client_item_id: 'big', movie_db_id: 2_147_483_648, watched_at: '2024-01-01T00:00:00Z' },
      { client_item_id: 'ok', movie_db_id: SPIRITED_AWAY, watched_at: '2024-01-01T00:00:00Z' },
    ];
    const res = await platform(app, alice.token, 'POST', '/sync/history', { items }, { 'idempotency-key': 'ids-in-a-bulk-item' });
    expect(res.status).toBe(200);
    const results = res.body.results as Array<Record<string, unknown>>;
    expect(results.map((r) => [r.client_item_id, r.status, r.error])).toEqual([
      ['big', 'invalid', `movie_db_id: ${TOO_BIG}`],
      ['ok', 'inserted', null],
    ]);
  });

  it('on /trpc', async () => {
    const res = await call('GET', trpcGet('platform.lists.get', '{"id":2147483648}'));
    expect(trpcError(res)).toEqual({ status: 400, error: 'invalid_request', message: `id: ${TOO_BIG}` });
  });

  it('declare maximum 2147483647 in both OpenAPI documents, on every integer id a request carries', async () => {
    const checked: string[] = [];
    for (const base of ['/api/platform/v1', '/api/public/v1']) {
      const doc = (await (await fetch(`${app.url}${base}/openapi.json`)).json()) as OpenApiDoc;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const where = `${method.toUpperCase()} ${base}${path}`;
          for (const p of op.parameters ?? []) visitIds(doc, p.schema, p.name, `${where} ${p.name}`, checked);
          const body = op.requestBody?.content?.['application/json']?.schema;
          if (body) visitIds(doc, body, '', `${where} body`, checked);
        }
      }
    }
    // The id inputs of the routes: lists, items, history entries, ratings, titles, devices, ...
    expect(checked.length).toBeGreaterThan(30);
  });
});

describe('dates PostgreSQL cannot read', () => {
  it('are refused: years before 1800 or from 3000 on, offsets included', async () => {
    const RANGE = 'must be from year 1800 to 2999';
    // 0001-01-01T00:00:00+01:00 is year 0 in UTC; 9999-12-31 plus the calendar's days is year 10000.
    expectRefusal(
      await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '0001-01-01T00:00:00+01:00' }),
      `watchedAt: ${RANGE}`,
    );
    expectRefusal(await platform(app, alice.token, 'GET', '/me/history?startAt=0000-01-01T00:00:00Z'), `startAt: ${RANGE}`);
    expectRefusal(await platform(app, alice.token, 'GET', `/me/history?endAt=${encodeURIComponent('9999-12-31T23:59:59-05:00')}`), `endAt: ${RANGE}`);
    expectRefusal(await platform(app, alice.token, 'GET', '/calendar?startDate=9999-12-31&days=31'), `startDate: ${RANGE}`);
    const bulk = await platform(app, alice.token, 'POST', '/sync/ratings', { items: [{ movie_db_id: SPIRITED_AWAY, rating: 5, rated_at: '0000-06-01T00:00:00Z' }] }, { 'idempotency-key': 'year-zero-rating' });
    expect(bulk.status).toBe(200);
    expect((bulk.body.results as Array<Record<string, unknown>>).map((r) => [r.status, r.error])).toEqual([['invalid', `rated_at: ${RANGE}`]]);
  });

  it('the edges of the range are read', async () => {
    expect((await platform(app, alice.token, 'GET', '/me/history?startAt=1800-01-01T00:00:00Z&endAt=2999-12-31T23:59:59.999Z')).status).toBe(200);
    expect((await platform(app, alice.token, 'GET', '/calendar?startDate=2999-12-31&days=31')).status).toBe(200);
  });
});

describe('forged cursors', () => {
  // A cursor's parameter hash has no secret: anyone can wrap any position in one. What PostgreSQL could
  // not read (a timestamp that is not one, an id past bigint, a NUL) is refused like any bad cursor.
  const forged = (position: unknown, params: Record<string, string | number | undefined> = {}) => encodeURIComponent(encodeCursor(position, params));
  const NOT_OURS = 'cursor is not a cursor this service issued';

  it.each([
    ['continue watching: not a timestamp', `/me/continue-watching?cursor=${forged(['garbage', '1'], { limit: 50 })}`],
    ['continue watching: past bigint', `/me/continue-watching?cursor=${forged(['2026-01-01 00:00:00+00', '99999999999999999999'], { limit: 50 })}`],
    ['history: year 0', `/me/history?cursor=${forged(['0000-01-01T00:00:00Z', '1'])}`],
    ['history: past bigint', `/me/history?cursor=${forged(['2026-01-01T00:00:00Z', '9999999999999999999'])}`],
    ['notifications: a date JavaScript reads and PostgreSQL does not', `/me/notifications?cursor=${forged(['Tue Mar 01 2026 10:00:00 GMT+0100', '1'])}`],
    ['lists: past bigint', `/me/lists?cursor=${forged('9999999999999999999', { limit: 50 })}`],
    ['change feed: past xid8', `/me/sync/changes?cursor=${forged(['99999999999999999999', '1', Date.now()])}`],
    ['snapshot: a NUL', `/me/sync/snapshot?resource=history&cursor=${forged(['1', 'x\u0000', Date.now()], { resource: 'history' })}`],
  ])('%s: 400', async (_name, path) => {
    expectRefusal(await platform(app, alice.token, 'GET', path), NOT_OURS);
  });
});

describe('JSON nested deeper than 64 levels', () => {
  /** `n` arrays inside one another: n levels. */
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  /** A bulk body of exactly `depth` levels: {"items":[ <item nested depth - 2 levels> ]}. Bulk items are
   * validated one by one, so a nested item is answered as `invalid` in a 200: the body was read. */
  const bulk = (depth: number) => `{"items":[${nest(depth - 2)}]}`;
  const key = (name: string) => ({ 'idempotency-key': `depth-${name}-${Math.random().toString(36).slice(2)}` });
  const DEEP = 'is nested deeper than 64 levels';

  it('REST body: 64 levels are read, 65 are refused before parsing', async () => {
    const ok = await call('POST', '/api/platform/v1/sync/history', bulk(64), key('rest'));
    expect(ok.status).toBe(200);
    expect((ok.body.results as Array<Record<string, unknown>>)[0]).toMatchObject({ status: 'invalid', error: 'item must be a JSON object' });
    expectRefusal(await call('POST', '/api/platform/v1/sync/history', bulk(65), key('rest')), `JSON body ${DEEP}`);
  });

  it('REST body: 30,000 levels (within the 64 KiB limit) are a 400 too, not a crash', async () => {
    const body = `{"name":"x","pad":${nest(30_000)}}`;
    expect(Buffer.byteLength(body)).toBeLessThan(64 * 1024);
    expectRefusal(await call('POST', '/api/platform/v1/lists', body), `JSON body ${DEEP}`);
  });

  it('/trpc call body: 64 levels read, 65 refused', async () => {
    const ok = await call('POST', '/trpc/platform.sync.history', bulk(64), key('trpc'));
    expect(ok.status).toBe(200);
    const data = (ok.body.result as { data: { results: Array<Record<string, unknown>> } }).data;
    expect(data.results[0]).toMatchObject({ status: 'invalid' });
    expectTrpcRefusal(await call('POST', '/trpc/platform.sync.history', bulk(65), key('trpc')), `JSON body ${DEEP}`);
  });

  it('/trpc batch: each input may have 64 levels (the batch object around them is not counted), not 65', async () => {
    const ok = await call('POST', '/trpc/platform.sync.history?batch=1', `{"0":${bulk(64)}}`, key('batch'));
    expect(ok.status).toBe(200);
    const [first] = ok.body as unknown as Array<{ result: { data: { results: Array<Record<string, unknown>> } } }>;
    expect(first!.result.data.results[0]).toMatchObject({ status: 'invalid' });
    expectTrpcRefusal(await call('POST', '/trpc/platform.sync.history?batch=1', `{"0":${bulk(65)}}`, key('batch')), `JSON body ${DEEP}`);
  });

  it('/trpc GET input: 64 levels reach the procedure, 65 are refused', async () => {
    const input = (depth: number) => `{"pad":${nest(depth - 1)}}`;
    const ok = await call('GET', trpcGet('platform.lists.mine', input(64)));
    expect(trpcError(ok)).toEqual({ status: 400, error: 'invalid_request', message: 'Unrecognized key: "pad"' });
    expectTrpcRefusal(await call('GET', trpcGet('platform.lists.mine', input(65))), `input ${DEEP}`);
  });
});

type Schema = { $ref?: string; type?: string | string[]; maximum?: number; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[] };
type OpenApiDoc = {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema: Schema }>; requestBody?: { content?: Record<string, { schema: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
};

const ID_NAME = /(^id$|Id$|_id$|Ids$)/;

/** Asserts every integer named like an id in `schema` declares maximum 2147483647; records what it saw. */
function visitIds(doc: OpenApiDoc, schema: Schema | undefined, name: string, where: string, checked: string[], seen = new Set<Schema>()): void {
  if (!schema || seen.has(schema)) return;
  seen.add(schema);
  if (schema.$ref) {
    visitIds(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()!], name, where, checked, seen);
    return;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') && ID_NAME.test(name)) {
    expect({ where, maximum: schema.maximum }).toEqual({ where, maximum: 2_147_483_647 });
    checked.push(where);
  }
  for (const [key, child] of Object.entries(schema.properties ?? {})) visitIds(doc, child, key, `${where}.${key}`, checked, seen);
  visitIds(doc, schema.items, name, `${where}[]`, checked, seen);
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) visitIds(doc, option, name, where, checked, seen);
}
