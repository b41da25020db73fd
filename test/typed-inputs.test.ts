// One input type per procedure, over real HTTP on both transports. A REST query string or path is text,
// which the facade reads into the numbers and booleans the input declares (src/rest/input-types.ts):
// `?limit=1` is 1, `?unread=false` is false, and text that is no number is refused with the field's own
// message. /trpc carries JSON, whose types are the caller's: {"limit": "1"} is 400 `invalid_request`,
// before and after REST calls have gone through the same schemas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/core/db/transaction.ts';
import { recordNotification } from '../src/core/notifications/record.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { call, type Answer } from './helpers/http.ts';
import { member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let listId: number;
let readId: string;
let unreadId: string;

const SCOPES = ['history:read', 'history:write', 'lists:read', 'lists:write', 'notifications:read', 'notifications:write'];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'typed', SCOPES);
  for (const watchedAt of ['2026-01-10T20:00:00Z', '2026-01-12T20:00:00Z']) {
    await ok(platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt }));
  }
  listId = (await ok(platform(app, alice.token, 'POST', '/lists', { name: 'Typed' }))).id as number;
  const notify = (n: number) =>
    transaction(app.db.orm.em.fork(), (tx) => recordNotification(tx, { userId: alice.userId, kind: 'trophy_earned', title: `Title ${n}`, body: `Body ${n}`, data: { n } }));
  readId = (await notify(1))!;
  unreadId = (await notify(2))!;
  await ok(platform(app, alice.token, 'POST', `/me/notifications/${readId}/read`, {}));
});
afterAll(() => app?.stop());

const rest = (path: string) => platform(app, alice.token, 'GET', path);

/** A /trpc query with `input` as JSON, as the tRPC client sends it. */
const trpcQuery = (procedure: string, input: unknown) => call(app, `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: alice.token });

/** A /trpc mutation. */
const trpcMutation = (procedure: string, input: unknown, headers: Record<string, string> = {}) => call(app, `/trpc/${procedure}`, { method: 'POST', token: alice.token, body: input, headers });

function expectRefusal(res: Answer, message: string): void {
  expectError(res, 400, 'invalid_request');
  expect(res.body.message).toBe(message);
}

/** A /trpc refusal: tRPC's error shape with the envelope's code and message. */
function expectTrpcRefusal(res: Answer, message: string): void {
  const error = res.body.error as { message?: unknown; data?: { error?: unknown } } | undefined;
  expect({ status: res.status, error: error?.data?.error, message: error?.message }).toEqual({ status: 400, error: 'invalid_request', message });
}

/** The `result.data` of a /trpc answer that must be 200. */
function trpcData(res: Answer): Record<string, unknown> {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.result as { data: Record<string, unknown> }).data;
}

const ids = (page: Record<string, unknown>) => (page.items as { id: unknown }[]).map((i) => i.id);

describe('a REST query string', () => {
  it('reads number text as numbers: ?limit=1 pages by one', async () => {
    const first = await ok(rest('/me/history?limit=1'));
    expect(first.items).toHaveLength(1);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await ok(rest('/me/history?limit=5'))).toMatchObject({ items: [{}, {}] });
  });

  it.each([
    ['five', 'limit: must be an integer'],
    ['0x10', 'limit: must be an integer'],
    ['1.5', 'limit: must be an integer'],
    ['0', 'limit: Too small: expected number to be >=1'],
  ])('refuses ?limit=%j with the message of the field', async (limit, message) => {
    expectRefusal(await rest(`/me/history?limit=${encodeURIComponent(limit)}`), message);
  });

  it('reads true/false and 1/0 as booleans: ?unread=false is the read ones only', async () => {
    for (const [flag, expected] of [
      ['false', [readId]],
      ['0', [readId]],
      ['true', [unreadId]],
      ['1', [unreadId]],
    ] as const) {
      expect(ids(await ok(rest(`/me/notifications?unread=${flag}`))), flag).toEqual(expected);
    }
    expect(ids(await ok(rest('/me/notifications')))).toEqual([unreadId, readId]);
    expectRefusal(await rest('/me/notifications?unread=maybe'), 'unread: must be true or false');
    expectRefusal(await rest('/me/notifications?unread=TRUE'), 'unread: must be true or false');
  });

  it('reads decimal text as a number on the public API too, and refuses other text in its {message}', async () => {
    const found = await call(app, '/api/public/v1/catalog/discover?minRating=0.5&yearFrom=1990&limit=3');
    expect(found.status).toBe(200);
    expect((found.body.items as unknown[]).length).toBeGreaterThan(0);
    const bad = await call(app, '/api/public/v1/catalog/discover?minRating=high');
    expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: { message: 'minRating: must be a number' } });
  });
});

describe('a REST path', () => {
  it('reads an id from its text, and refuses text that is no integer', async () => {
    expect(await ok(rest(`/lists/${listId}`))).toMatchObject({ id: listId, name: 'Typed' });
    expectRefusal(await rest('/lists/abc'), 'id: must be an integer');
    expectRefusal(await rest('/lists/1e400'), 'id: must be an integer');
  });
});

describe('a REST body', () => {
  it('keeps its JSON types: number text where a number belongs is 400', async () => {
    expectRefusal(await platform(app, alice.token, 'POST', `/lists/${listId}/items`, { items: [{ type: 'movie', movieDbId: String(SPIRITED_AWAY) }] }), 'items.0.movieDbId: must be an integer');
  });
});

describe('/trpc', () => {
  it('takes numbers as numbers, and refuses number text with 400 invalid_request (after REST read the same schema)', async () => {
    await ok(rest('/me/history?limit=1'));
    expect(trpcData(await trpcQuery('platform.history.list', { limit: 1 })).items).toHaveLength(1);
    expectTrpcRefusal(await trpcQuery('platform.history.list', { limit: '1' }), 'limit: must be an integer');
    expectTrpcRefusal(await trpcQuery('platform.history.list', { limit: 'five' }), 'limit: must be an integer');
    expect(trpcData(await trpcQuery('platform.lists.get', { id: listId }))).toMatchObject({ id: listId });
    expectTrpcRefusal(await trpcQuery('platform.lists.get', { id: String(listId) }), 'id: must be an integer');
  });

  it('takes booleans as booleans, and refuses their query-string spellings', async () => {
    await ok(rest('/me/notifications?unread=false'));
    expect(ids(trpcData(await trpcQuery('platform.notifications.list', { unread: false })))).toEqual([readId]);
    expectTrpcRefusal(await trpcQuery('platform.notifications.list', { unread: 'false' }), 'unread: must be true or false');
    expectTrpcRefusal(await trpcQuery('platform.notifications.list', { unread: 1 }), 'unread: must be true or false');
  });

  it('takes a bulk sync body whose items are validated one by one, as on REST', async () => {
    const items = [
      { client_item_id: 'good', movie_db_id: SPIRITED_AWAY, watched_at: '2025-06-01T20:00:00Z' },
      { client_item_id: 'text id', movie_db_id: String(SPIRITED_AWAY), watched_at: '2025-06-02T20:00:00Z' },
    ];
    const data = trpcData(await trpcMutation('platform.sync.history', { items }, { 'idempotency-key': 'typed-inputs-sync-1' }));
    expect((data.results as Record<string, unknown>[]).map((r) => [r.client_item_id, r.status, r.error])).toEqual([
      ['good', 'inserted', null],
      ['text id', 'invalid', 'movie_db_id: Invalid input: expected number, received string'],
    ]);
  });
});
