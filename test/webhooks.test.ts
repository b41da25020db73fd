// Outbound webhooks end to end: a receiver on loopback (allowed by WEBHOOK_ALLOW_PRIVATE), messages
// verified with the Standard Webhooks reference package, checked against the change log: every change
// at least once and in order per user, through failures, pauses and revocations.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { platform, seedCatalog, SPIRITED_AWAY, member, ok } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { issueToken } from './helpers/tokens.ts';
import { query } from '../src/core/db/sql.ts';
import { until } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import {
  connect,
  expectedChanges,
  expectEveryChangeInOrder,
  getWebhook,
  lastChangeId,
  ownedApp,
  subscribe,
  verified,
  WEBHOOK_TEST_ENV,
  type Connected,
  type OwnedTestApp,
} from './helpers/webhooks.ts';

let app: TestApp;
const receivers: Receiver[] = [];
const METRICS_TOKEN = 'webhooks-metrics-token-0123456789';

/** The fixture's movies, watched in turn: a write's figures recount its title's entries, so one title for a thousand watches would cost more each time. */
let movies: number[] = [];

beforeAll(async () => {
  app = await startTestApp({ ...WEBHOOK_TEST_ENV, METRICS_TOKEN });
  await seedCatalog(app);
  movies = (await query<{ movie_db_id: number }>(app.db.orm.em.fork(), { text: `select movie_db_id from title where type = 'movie' order by movie_db_id`, params: [] })).map((r) => r.movie_db_id);
}, 120_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await app?.stop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const READ_WRITE = ['history:read', 'history:write', 'ratings:read', 'ratings:write'];
let step = 0;
/** A distinct time for every watch the file logs, hours apart (a watch of one movie within an hour of another is the same watch). */
const nextWatch = () => new Date(Date.UTC(2024, 0, 1) + ++step * 2 * 3_600_000).toISOString();
const nextMovie = () => movies[step % movies.length]!;

const watch = (u: Connected) => ok(platform(app, u.token, 'POST', '/watch-history', { type: 'movie', movieDbId: nextMovie(), watchedAt: nextWatch() }));

/** `n` watches in bulk sync calls of up to 100 items. */
async function bulkWatches(u: Connected, n: number): Promise<void> {
  for (let left = n; left > 0; left -= 100) {
    const items = Array.from({ length: Math.min(100, left) }, () => ({ movie_db_id: nextMovie(), watched_at: nextWatch() }));
    await ok(bulk(app, u.token, 'history', items));
  }
}

/** Waits until every change expected has been answered 2xx by the receiver. */
async function untilDelivered(r: Receiver, secret: string, expected: { id: string }[], timeoutMs = 120_000): Promise<void> {
  const want = new Set(expected.map((e) => `msg_${e.id}`));
  await until(
    `${want.size} messages delivered`,
    () => {
      const got = new Set(r.received.filter((x) => x.answered < 300).map((x) => String(x.headers['webhook-id'])));
      return [...want].every((id) => got.has(id));
    },
    timeoutMs,
    50,
  );
  verified(r.received, secret);
}

describe('a burst of 1,000 writes', () => {
  let owned: OwnedTestApp;
  beforeAll(async () => {
    owned = await ownedApp(app, 'burst-owner');
  });

  it('reaches the receiver whole, every message signed, in order per user, nothing of users who did not connect the app', async () => {
    const r = await receiver();
    const hook = await subscribe(app, owned, r.url, ['history', 'ratings']);
    const after = await lastChangeId(app);
    const users = await Promise.all(['burst-1', 'burst-2', 'burst-3', 'burst-4'].map((n) => connect(app, owned, n, READ_WRITE)));
    // Someone using another app only: their writes are never sent.
    const stranger = await member(app, 'burst-stranger', ['history:write']);
    const [u1, u2, u3, u4] = users as [Connected, Connected, Connected, Connected];
    const start = Date.now();
    await Promise.all([
      (async () => {
        await bulkWatches(u1, 300);
      })(),
      (async () => {
        await bulkWatches(u2, 150);
        for (let i = 0; i < 10; i++) await watch(u2);
        await bulkWatches(u2, 140);
      })(),
      (async () => {
        for (let i = 0; i < 200; i++) await watch(u3);
      })(),
      (async () => {
        for (let i = 0; i < 200; i++) await watch(u4);
      })(),
      (async () => {
        for (let i = 0; i < 20; i++) await ok(platform(app, stranger.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: nextWatch() }));
      })(),
    ]);
    const written = Date.now();
    console.log(`burst: written in ${written - start} ms`);
    const expected = await expectedChanges(app, users.map((u) => u.userId), ['history', 'ratings'], after);
    expect(expected.length).toBeGreaterThanOrEqual(1000);
    await untilDelivered(r, hook.secret, expected);
    console.log(`burst: written in ${written - start} ms, delivered ${Date.now() - written} ms later; ${r.received.length} requests`);
    const messages = verified(r.received, hook.secret);
    expectEveryChangeInOrder(messages, expected);
    // A receiver that always answers gets each message once: a pass that stops short keeps what it sent past the cursor.
    expect(messages).toHaveLength(expected.length);
    expect(messages.filter((m) => m.userId === stranger.userId)).toEqual([]);
    expect(new Set(messages.map((m) => m.type))).toEqual(new Set(['history.upsert']));

    // The body: Standard Webhooks' {type, timestamp, data}, data the change as the change feed serves it.
    const first = messages.find((m) => m.id === `msg_${expected[0]!.id}`)!;
    expect(first.body).toEqual({
      type: 'history.upsert',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        userId: expected[0]!.user_id,
        position: `${expected[0]!.xid}:${expected[0]!.id}`,
        change: { resource: 'history', resourceId: expect.any(String), op: 'upsert', changedAt: (first.body as { timestamp: string }).timestamp, data: expect.objectContaining({ movieDbId: expect.any(Number) }) },
      },
    });

    // The headers by hand, once: webhook-id, Unix seconds, and v1,base64(HMAC-SHA256(key, id.timestamp.body)).
    const raw = r.received.find((x) => x.headers['webhook-id'] === first.id)!;
    const ts = Number(raw.headers['webhook-timestamp']);
    expect(String(ts)).toMatch(/^\d{10}$/);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(600);
    const key = Buffer.from(hook.secret.replace(/^whsec_/, ''), 'base64');
    expect(key.length).toBe(32);
    const mac = createHmac('sha256', key).update(`${first.id}.${ts}.${raw.body}`).digest('base64');
    expect(raw.headers['webhook-signature']).toBe(`v1,${mac}`);
    expect(raw.headers['content-type']).toBe('application/json');
  });
});

describe('a receiver that fails for a while', () => {
  it('gets everything once it answers again, in order, with the failed attempts in the log', async () => {
    const owned = await ownedApp(app, 'flaky-owner');
    const r = await receiver();
    let refused = 0;
    r.answer(() => (refused++ < 4 ? 500 : 200));
    const hook = await subscribe(app, owned, r.url, ['history']);
    const after = await lastChangeId(app);
    const users = await Promise.all(['flaky-1', 'flaky-2'].map((n) => connect(app, owned, n, READ_WRITE)));
    await Promise.all(users.map(async (u) => {
      for (let i = 0; i < 25; i++) await watch(u);
      await bulkWatches(u, 50);
    }));
    const expected = await expectedChanges(app, users.map((u) => u.userId), ['history'], after);
    await untilDelivered(r, hook.secret, expected);
    expectEveryChangeInOrder(verified(r.received, hook.secret), expected);
    expect(r.received.filter((x) => x.answered === 500).length).toBeGreaterThanOrEqual(4);
    await until('the webhook back to no failures', async () => (await getWebhook(app, owned, hook.id)).failures === 0);
    const state = await getWebhook(app, owned, hook.id);
    expect(state).toMatchObject({ status: 'active', pausedReason: null, failures: 0, lastStatus: 200, lastError: null });
    const items: { status: number | null; error: string | null; attempt: number }[] = [];
    for (let before: string | null = ''; before !== null; ) {
      const page = await ok(platform(app, owned.ownerToken, 'GET', `/apps/me/webhooks/${hook.id}/deliveries?limit=100${before ? `&before=${before}` : ''}`));
      items.push(...(page.items as typeof items));
      before = page.nextBefore as string | null;
    }
    expect(items.some((d) => d.status === 500 && d.error === 'HTTP 500')).toBe(true);
    // A retry counts the attempts of the message at the head.
    expect(Math.max(...items.map((d) => d.attempt))).toBeGreaterThanOrEqual(2);
  });
});

describe('repeated failures', () => {
  it('pause the webhook with the reason shown; resuming delivers the rest in order', async () => {
    const owned = await ownedApp(app, 'pause-owner');
    const r = await receiver();
    r.answer(500);
    const hook = await subscribe(app, owned, r.url, ['history']);
    const after = await lastChangeId(app);
    const u = await connect(app, owned, 'pause-1', READ_WRITE);
    for (let i = 0; i < 5; i++) await watch(u);
    await until('the webhook paused', async () => (await getWebhook(app, owned, hook.id)).status === 'paused');
    const paused = await getWebhook(app, owned, hook.id);
    expect(paused).toMatchObject({ status: 'paused', failures: 6, lastStatus: 500, lastError: 'HTTP 500' });
    expect(paused.pausedReason).toMatch(/^6 failed attempts in a row since \S+; the last: HTTP 500$/);
    expect(paused.pausedAt).toEqual(expect.any(String));
    // Paused: nothing more goes out.
    const sent = r.received.length;
    await watch(u);
    const expected = await expectedChanges(app, [u.userId], ['history'], after);
    expect(expected).toHaveLength(6);
    r.answer(200);
    expect(r.received.length).toBe(sent);
    const resumed = await ok(platform(app, owned.ownerToken, 'POST', `/apps/me/webhooks/${hook.id}/resume`));
    expect(resumed).toMatchObject({ status: 'active', pausedReason: null, pausedAt: null, failures: 0 });
    await untilDelivered(r, hook.secret, expected);
    expectEveryChangeInOrder(verified(r.received, hook.secret), expected);
  });

  it('a 410 Gone pauses at once', async () => {
    const owned = await ownedApp(app, 'gone-owner');
    const r = await receiver();
    r.answer(410);
    const hook = await subscribe(app, owned, r.url, ['history']);
    const u = await connect(app, owned, 'gone-1', READ_WRITE);
    await watch(u);
    await until('the webhook paused', async () => (await getWebhook(app, owned, hook.id)).status === 'paused');
    expect(await getWebhook(app, owned, hook.id)).toMatchObject({ status: 'paused', failures: 1, lastStatus: 410, pausedReason: 'The receiver answered 410 Gone' });
    expect(r.received).toHaveLength(1);
  });
});

describe('grants and scopes', () => {
  it('a revoked grant: authorization.revoked after the user\'s earlier changes, then nothing more of theirs', async () => {
    const owned = await ownedApp(app, 'revoke-owner');
    const r = await receiver();
    const hook = await subscribe(app, owned, r.url, ['history', 'authorization.revoked']);
    const after = await lastChangeId(app);
    const leaving = await connect(app, owned, 'revoke-1', READ_WRITE);
    const staying = await connect(app, owned, 'revoke-2', READ_WRITE);
    // The user's official app (their account settings), which revokes the grant and writes on.
    const settings = await member(app, 'revoke-settings', ['profile:write'], { official: true });
    const official = await issueToken(app, { userId: leaving.userId, clientId: settings.clientId, scope: 'profile:write history:read history:write' });
    for (let i = 0; i < 3; i++) await watch(leaving);
    await untilDelivered(r, hook.secret, await expectedChanges(app, [leaving.userId], ['history'], after));
    expect((await platform(app, official, 'DELETE', `/me/connected-apps/${owned.clientId}`)).status).toBe(200);
    for (let i = 0; i < 3; i++) await ok(platform(app, official, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: nextWatch() }));
    // A later change of someone still connected: once it is delivered, the leaving user's later ones were passed over.
    await watch(staying);
    const expected = await expectedChanges(app, [staying.userId], ['history'], after);
    await untilDelivered(r, hook.secret, expected);
    const mine = verified(r.received, hook.secret).filter((m) => m.userId === leaving.userId);
    expect(mine.map((m) => m.type)).toEqual(['history.upsert', 'history.upsert', 'history.upsert', 'authorization.revoked']);
    expect(mine[3]!.body).toEqual({
      type: 'authorization.revoked',
      timestamp: expect.any(String),
      data: { userId: leaving.userId, position: expect.stringMatching(/^\d+:\d+$/), clientId: owned.clientId },
    });
    // The revocation's record is the webhooks' alone: the user's change feed does not show it.
    const feed = await ok(platform(app, official, 'GET', '/me/sync/changes?limit=1000'));
    expect((feed.changes as unknown[]).length).toBe(6);
    expect(JSON.stringify(feed)).not.toContain('app_authorization');
  });

  it('consent is read when a message is sent: changes still waiting when the user revokes are withheld', async () => {
    const owned = await ownedApp(app, 'withheld-owner');
    const r = await receiver();
    r.answer(503);
    const hook = await subscribe(app, owned, r.url, ['history', 'authorization.revoked']);
    const u = await connect(app, owned, 'withheld-1', READ_WRITE);
    const settings = await member(app, 'withheld-settings', ['profile:write'], { official: true });
    const official = await issueToken(app, { userId: u.userId, clientId: settings.clientId, scope: 'profile:write' });
    await watch(u);
    await watch(u);
    await until('an attempt refused', () => r.received.length > 0);
    expect((await platform(app, official, 'DELETE', `/me/connected-apps/${owned.clientId}`)).status).toBe(200);
    r.answer(200);
    await ok(platform(app, owned.ownerToken, 'POST', `/apps/me/webhooks/${hook.id}/resume`));
    await until('the revocation delivered', () => r.received.some((x) => x.answered === 200));
    const delivered = verified(r.received, hook.secret).filter((m) => m.answered === 200);
    expect(delivered.map((m) => m.type)).toEqual(['authorization.revoked']);
  });

  it('a user whose grant lacks a resource\'s read scope never has that resource\'s changes sent', async () => {
    const owned = await ownedApp(app, 'scope-owner');
    const r = await receiver();
    const hook = await subscribe(app, owned, r.url, ['history', 'ratings']);
    const after = await lastChangeId(app);
    // Connected for ratings only; their history is written through another app.
    const partial = await connect(app, owned, 'scope-1', ['ratings:read', 'ratings:write']);
    const other = await member(app, 'scope-writer', ['history:write']);
    const writer = await issueToken(app, { userId: partial.userId, clientId: other.clientId, scope: 'history:write' });
    await ok(platform(app, writer, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: nextWatch() }));
    await ok(platform(app, partial.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 8 }));
    const ratings = await expectedChanges(app, [partial.userId], ['ratings'], after);
    expect(ratings.length).toBeGreaterThanOrEqual(1);
    await untilDelivered(r, hook.secret, ratings);
    const types = verified(r.received, hook.secret).map((m) => m.type);
    expect(types.every((t) => t.startsWith('ratings.'))).toBe(true);
    expect((await expectedChanges(app, [partial.userId], ['history'], after)).length).toBe(1);
  });
});

describe('playback', () => {
  it('an incomplete stop is a playback.upsert (Continue Watching), dismissing it a playback.delete', async () => {
    const owned = await ownedApp(app, 'playback-owner');
    const r = await receiver();
    const hook = await subscribe(app, owned, r.url, ['playback']);
    const after = await lastChangeId(app);
    const viewer = await connect(app, owned, 'playback-1', ['playback:read', 'playback:write']);
    const stopped = await platform(app, viewer.token, 'POST', '/playback/stop', {
      event_id: 'wh-1', event_created_at: Date.now() - 1000, media_type: 'movie', title: 'x', movie_db_id: SPIRITED_AWAY, progress: 0.4, playback_session_id: 'wh-s-1',
    });
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    const list = await ok(platform(app, viewer.token, 'GET', '/me/continue-watching'));
    const entry = (list.items as { id: number }[])[0]!;
    await ok(platform(app, viewer.token, 'DELETE', `/me/continue-watching/${entry.id}`));
    const expected = await expectedChanges(app, [viewer.userId], ['playback'], after);
    await untilDelivered(r, hook.secret, expected);
    const messages = verified(r.received, hook.secret);
    expectEveryChangeInOrder(messages, expected);
    // Each carries the item's latest settled state, as the change feed does: both now say it is gone.
    expect(messages.at(-1)!.body).toMatchObject({ type: 'playback.delete', data: { change: { resource: 'playback', resourceId: String(entry.id), op: 'delete', data: null } } });
  });
});

describe('/metrics', () => {
  const scrape = async () => (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const counter = (text: string, outcome: string) => Number(new RegExp(`^webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

  it('counts attempts by outcome and reports the backlog\'s age', async () => {
    const before = await scrape();
    const owned = await ownedApp(app, 'metrics-owner');
    const r = await receiver();
    let calls = 0;
    r.answer(() => (calls++ === 0 ? 503 : 200));
    const hook = await subscribe(app, owned, r.url, ['history']);
    const after = await lastChangeId(app);
    const u = await connect(app, owned, 'metrics-1', READ_WRITE);
    await watch(u);
    await untilDelivered(r, hook.secret, await expectedChanges(app, [u.userId], ['history'], after));
    const text = await scrape();
    // Other files' apps share the process's registry: differences, never absolute values.
    expect(counter(text, 'delivered') - counter(before, 'delivered')).toBeGreaterThanOrEqual(1);
    expect(counter(text, 'failed') - counter(before, 'failed')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^webhook_delivery_duration_seconds_count\{outcome="failed"\} \d+$/m);
    expect(text).toMatch(/^webhook_subscriptions_paused_total \d+$/m);
    expect(text).toMatch(/^webhook_backlog_age_seconds \d+(\.\d+)?(e[-+]\d+)?$/m);
  });
});
