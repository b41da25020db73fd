// Two instances on one PostgreSQL deliver one app's webhooks: each subscription is served under a lease by
// one instance at a time, so with a receiver that always answers, every message arrives exactly once and
// in order per user, whichever instance took the write or the tick. Services mode only: the embedded
// database has a single owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { ok, platform, seedCatalog } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { connect, expectedChanges, expectEveryChangeInOrder, lastChangeId, ownedApp, subscribe, verified, WEBHOOK_TEST_ENV } from './helpers/webhooks.ts';

describe.skipIf(!servicesMode)('two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let r: Receiver;

  beforeAll(async () => {
    // Both tick often and both are woken by every write of this process: their passes meet all the time.
    a = await startTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_INTERVAL_MS: '100' });
    b = await startTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_INTERVAL_MS: '100' }, { sameDatabaseAs: a });
    await seedCatalog(a);
    r = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    await r?.close();
    await b?.stop();
    await a?.stop();
  });

  it('deliver each message once, in order per user', async () => {
    const owned = await ownedApp(a, 'fleet-owner');
    const hooks = [await subscribe(a, owned, r.url, ['history']), await subscribe(b, owned, `${r.url}/second`, ['history'])];
    const after = await lastChangeId(a);
    const users = await Promise.all(['fleet-1', 'fleet-2', 'fleet-3'].map((n) => connect(a, owned, n, ['history:read', 'history:write'])));
    const [movie] = await query<{ movie_db_id: number }>(a.db.orm.em.fork(), { text: `select movie_db_id from title where type = 'movie' limit 1`, params: [] });
    let hour = 0;
    await Promise.all(
      users.map(async (u, i) => {
        for (let n = 0; n < 40; n++) {
          // Every other write through the other instance.
          const via = (n + i) % 2 === 0 ? a : b;
          await ok(platform(via, u.token, 'POST', '/watch-history', { type: 'movie', movieDbId: movie!.movie_db_id, watchedAt: new Date(Date.UTC(2024, 0, 1) + ++hour * 2 * 3_600_000).toISOString() }));
        }
      }),
    );
    const expected = await expectedChanges(a, users.map((u) => u.userId), ['history'], after);
    expect(expected).toHaveLength(120);
    for (const [i, hook] of hooks.entries()) {
      const path = i === 0 ? '/hooks' : '/hooks/second';
      const mine = () => r.received.filter((x) => x.path === path);
      await until(`webhook ${i + 1} delivered`, () => mine().length >= expected.length, 60_000, 50);
      // Settled: its cursor past the last change and no pass holding it, so nothing more can be on its way.
      await until(`webhook ${i + 1} settled`, async () => {
        const [row] = await query<{ done: boolean }>(a.db.orm.em.fork(), {
          text: `select cursor_change_id >= $2::bigint and claim is null as done from webhook_subscription where id = $1::bigint`,
          params: [hook.id, expected.at(-1)!.id],
        });
        return row!.done;
      });
      const messages = verified(mine(), hook.secret);
      const failed = await query<{ message_id: string; error: string | null; status: number | null }>(a.db.orm.em.fork(), {
        text: `select message_id, error, status from webhook_delivery where subscription_id = $1::bigint and error is not null`,
        params: [hook.id],
      });
      // A receiver that always answers: no attempt failed, so nothing had to go twice.
      expect(failed).toEqual([]);
      expectEveryChangeInOrder(messages, expected);
      // Exactly once: no message twice.
      expect(messages.map((m) => m.id)).toHaveLength(new Set(messages.map((m) => m.id)).size);
      expect(messages).toHaveLength(expected.length);
    }
  });
});
