// Sync writes through the client package's createClient: the Idempotency-Key is the call's, so the
// client's own retries send it unchanged. A write sent while the first request with its key is still
// running is answered 409 `request_in_progress` (services mode: the embedded database runs one
// transaction at a time, so there the second request waits and replays); the client sends it again with
// the same key until the stored result comes back, replayed, and never applies the batch twice; so is
// a write whose answer was lost on the way back.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, withIdempotencyKey } from '../packages/client/src/index.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { member, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { heldHistoryWrite } from './helpers/sync-hold.ts';

let app: TestApp;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterEach(() => {
  globalThis.fetch = realFetch;
});
afterAll(() => app?.stop());

/** The Idempotency-Key and answer status of each sync request the client sends (tRPC's links call the global fetch). */
function recordSyncRequests(): Array<{ key: string | null; status: number }> {
  const sent: Array<{ key: string | null; status: number }> = [];
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    if (String(input).includes('/trpc/platform.sync.')) sent.push({ key: new Headers(init?.headers).get('idempotency-key'), status: res.status });
    return res;
  };
  return sent;
}

describe('sync writes through the client package', () => {
  it('a write whose first request is still running is sent again with the same key, and replays', async () => {
    const m = await member(app, 'client_sync', ['history:write']);
    const items = [{ client_item_id: 'held', movie_db_id: SPIRITED_AWAY, watched_at: '2025-06-01T20:00:00Z' }];
    const key = `client-sync-${Date.now()}`;
    // The first request with the key: its transaction stays open 1.5 s after its writes.
    const first = heldHistoryWrite(app.db.orm.em.fork(), m, items, key, 1500);
    await first.claimed;
    const sent = recordSyncRequests();
    const client = createClient({ baseUrl: app.url, token: m.token });
    const answer = await client.platform.sync.history.mutate({ items }, withIdempotencyKey(key));
    const applied = await first.applied;
    expect(answer).toEqual({ ...applied, idempotency_replayed: true });
    expect(sent.every((s) => s.key === key)).toBe(true);
    expect(sent.at(-1)?.status).toBe(200);
    if (servicesMode) {
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(sent.slice(0, -1).map((s) => s.status)).toEqual(sent.slice(0, -1).map(() => 409));
    }
  });

  it('a write whose answer never came is sent again with its key: applied once, the retry replays it', async () => {
    const m = await member(app, 'client_lost', ['history:write']);
    const keys: Array<string | null> = [];
    // The first request reaches the service and is applied; its answer is lost on the way back.
    globalThis.fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      const res = await realFetch(input, init);
      if (keys.length === 1) {
        await res.body?.cancel();
        throw new TypeError('fetch failed');
      }
      return res;
    };
    const client = createClient({ baseUrl: app.url, token: m.token });
    const answer = await client.platform.sync.history.mutate({ items: [{ movie_db_id: SPIRITED_AWAY, watched_at: '2025-08-01T20:00:00Z' }] });
    expect(answer).toMatchObject({ inserted: 1, idempotency_replayed: true });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('each call gets a key of its own', async () => {
    const m = await member(app, 'client_keys', ['history:write']);
    const sent = recordSyncRequests();
    const client = createClient({ baseUrl: app.url, token: m.token });
    const watch = (day: number) => [{ movie_db_id: SPIRITED_AWAY, watched_at: `2025-07-0${day}T20:00:00Z` }];
    const [a, b] = await Promise.all([client.platform.sync.history.mutate({ items: watch(1) }), client.platform.sync.history.mutate({ items: watch(2) })]);
    expect([a.inserted, b.inserted, a.idempotency_replayed, b.idempotency_replayed]).toEqual([1, 1, false, false]);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[0]!.key).not.toBe(sent[1]!.key);
  });
});
