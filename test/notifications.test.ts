// The notification inbox over real HTTP: the exact Notification shape, scopes of every route, keyset
// paging (each notification exactly once, newest first; cursors bound to `unread`), the unread count,
// marking one and all read (idempotent, another user's notification 404), preferences per kind (a kind
// turned off is not recorded), bad limits, cursors, filters and ids (400), and the change-feed records.
// Notifications are recorded with recordNotification, the producers' own entry point; the producers
// themselves are tested in notifications-producers.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/core/db/transaction.ts';
import { recordNotification, type NotificationKind } from '../src/core/notifications/record.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import { member, platform, tokenWith, type Member } from './helpers/seed.ts';
import { settled } from './helpers/sync-client.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
const RW = ['notifications:read', 'notifications:write'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ALL_ON = {
  list_invitation: { inApp: true, push: true },
  list_liked: { inApp: true, push: true },
  new_episode: { inApp: true, push: true },
  trophy_earned: { inApp: true, push: true },
};

const call = (m: Member | string, method: string, path: string, body?: unknown) =>
  platform(app, typeof m === 'string' ? m : m.token, method, path, body ?? (method === 'POST' ? {} : undefined));

type Wire = { id: string; kind: string; title: string; body: string; data: Record<string, unknown>; read: boolean; readAt: string | null; createdAt: string };

function notify(userId: string, kind: NotificationKind, n: number, dedupeKey?: string) {
  return transaction(app.db.orm.em.fork(), (tx) =>
    recordNotification(tx, { userId, kind, title: `Title ${n}`, body: `Body ${n}`, data: { n }, ...(dedupeKey ? { dedupeKey } : {}) }),
  );
}

async function inbox(m: Member, query = '') {
  const res = await call(m, 'GET', `/me/notifications${query}`);
  expect(res.status).toBe(200);
  return res.body as { items: Wire[]; nextCursor?: string };
}

async function unread(m: Member) {
  const res = await call(m, 'GET', '/me/notifications/unread-count');
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  app = await startTestApp();
  alice = await member(app, 'alice', RW);
  bob = await member(app, 'bob', RW);
});

afterAll(async () => {
  await app?.stop();
});

describe('notifications', () => {
  it('shows a recorded notification in its exact shape, unread, and counts it', async () => {
    const u = await member(app, 'shape', RW);
    expect(await inbox(u)).toEqual({ items: [] });
    expect(await unread(u)).toEqual({ unread: 0 });
    const id = await notify(u.userId, 'trophy_earned', 1);
    expect(id).toMatch(/^[1-9][0-9]*$/);
    const page = await inbox(u);
    expect(page).toEqual({
      items: [{ id, kind: 'trophy_earned', title: 'Title 1', body: 'Body 1', data: { n: 1 }, read: false, readAt: null, createdAt: expect.stringMatching(ISO) }],
    });
    expect(await unread(u)).toEqual({ unread: 1 });
  });

  it('records a dedupe key once per user', async () => {
    const u = await member(app, 'dedupe', RW);
    const first = await notify(u.userId, 'trophy_earned', 1, 'trophy:first');
    expect(first).not.toBeNull();
    expect(await notify(u.userId, 'trophy_earned', 2, 'trophy:first')).toBeNull();
    // Another user with the same key gets their own.
    expect(await notify(alice.userId, 'trophy_earned', 3, 'trophy:first')).not.toBeNull();
    expect((await inbox(u)).items.map((n) => n.id)).toEqual([first]);
  });

  it('pages newest first, each notification exactly once, and filters by read state', async () => {
    const u = await member(app, 'pager', RW);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await notify(u.userId, 'new_episode', i))!);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await inbox(u, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBe(pages < 2 ? 3 : 1);
      seen.push(...page.items.map((n) => n.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    // A page that ends exactly at the last notification has no nextCursor.
    expect(Object.keys(await inbox(u, '?limit=7'))).toEqual(['items']);
    expect((await inbox(u, '?limit=6')).nextCursor).toEqual(expect.any(String));

    // Read state filters (explicit strings; `false` and `0` are not "true").
    expect((await call(u, 'POST', `/me/notifications/${ids[1]}/read`)).status).toBe(200);
    expect((await call(u, 'POST', `/me/notifications/${ids[4]}/read`)).status).toBe(200);
    expect((await inbox(u, '?unread=false')).items.map((n) => n.id)).toEqual([ids[4], ids[1]]);
    expect((await inbox(u, '?unread=0')).items.map((n) => n.id)).toEqual([ids[4], ids[1]]);
    expect((await inbox(u, '?unread=true')).items.map((n) => n.id)).toEqual([ids[6], ids[5], ids[3], ids[2], ids[0]]);
    expect((await inbox(u, '?unread=1')).items.map((n) => n.id)).toEqual([ids[6], ids[5], ids[3], ids[2], ids[0]]);
    const unreadPage = await inbox(u, '?unread=true&limit=2');
    const next = await inbox(u, `?unread=true&limit=2&cursor=${unreadPage.nextCursor}`);
    expect(next.items.map((n) => n.id)).toEqual([ids[3], ids[2]]);

    // The cursor is bound to `unread`; `limit` may change.
    expectError(await call(u, 'GET', `/me/notifications?limit=2&cursor=${unreadPage.nextCursor}`), 400, 'invalid_request');
    expectError(await call(u, 'GET', `/me/notifications?unread=false&limit=2&cursor=${unreadPage.nextCursor}`), 400, 'invalid_request');
    expect((await inbox(u, `?unread=true&limit=3&cursor=${unreadPage.nextCursor}`)).items.map((n) => n.id)).toEqual([ids[3], ids[2], ids[0]]);
  });

  it('rejects bad limits, cursors and filters with 400', async () => {
    expect((await inbox(alice, '?limit=1')).items.length).toBeLessThanOrEqual(1);
    expect((await call(alice, 'GET', '/me/notifications?limit=100')).status).toBe(200);
    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=2.5', 'limit=abc', 'cursor=garbage', `cursor=${Buffer.from('{"p":[1],"h":"x"}').toString('base64url')}`, 'unread=yes', 'unread=TRUE', 'other=1']) {
      const res = await call(alice, 'GET', `/me/notifications?${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expectError(res, 400, 'invalid_request');
    }
    expectError(await call(alice, 'GET', `/me/notifications?cursor=${'a'.repeat(501)}`), 400, 'invalid_request');
  });

  it('marks one read: idempotent, keeps the first readAt; another user\'s or unknown id is 404', async () => {
    const u = await member(app, 'marker', RW);
    const a = (await notify(u.userId, 'list_liked', 1))!;
    const b = (await notify(u.userId, 'list_liked', 2))!;
    expect(await unread(u)).toEqual({ unread: 2 });
    const first = await call(u, 'POST', `/me/notifications/${a}/read`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: a, kind: 'list_liked', title: 'Title 1', body: 'Body 1', data: { n: 1 }, read: true, readAt: expect.stringMatching(ISO), createdAt: expect.stringMatching(ISO) });
    expect(await unread(u)).toEqual({ unread: 1 });
    const again = await call(u, 'POST', `/me/notifications/${a}/read`);
    expect(again.body).toEqual(first.body);
    // No body at all reads as {} too.
    const noBody = await fetch(`${app.url}/api/platform/v1/me/notifications/${a}/read`, { method: 'POST', headers: { authorization: `Bearer ${u.token}` } });
    expect(noBody.status).toBe(200);
    expect(await unread(u)).toEqual({ unread: 1 });

    expectError(await call(bob, 'POST', `/me/notifications/${b}/read`), 404, 'not_found');
    expectError(await call(u, 'POST', '/me/notifications/999999999999/read'), 404, 'not_found');
    for (const bad of ['abc', '0', '-1', '1.5', '1234567890123456789']) {
      expectError(await call(u, 'POST', `/me/notifications/${bad}/read`), 400, 'invalid_request');
    }
    expectError(await call(u, 'POST', `/me/notifications/${b}/read`, { extra: true }), 400, 'invalid_request');
    expect(await unread(u)).toEqual({ unread: 1 });
    expect((await inbox(u)).items.map((n) => [n.id, n.read])).toEqual([[b, false], [a, true]]);
  });

  it('marks all read and answers how many it marked', async () => {
    const u = await member(app, 'allreader', RW);
    for (let i = 0; i < 3; i++) await notify(u.userId, 'new_episode', i);
    const other = (await notify(bob.userId, 'new_episode', 9))!;
    const res = await call(u, 'POST', '/me/notifications/read-all');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ marked: 3 });
    expect(await unread(u)).toEqual({ unread: 0 });
    expect((await inbox(u)).items.every((n) => n.read && ISO.test(n.readAt!))).toBe(true);
    expect((await call(u, 'POST', '/me/notifications/read-all')).body).toEqual({ marked: 0 });
    expectError(await call(u, 'POST', '/me/notifications/read-all', { all: true }), 400, 'invalid_request');
    // Bob's notification is untouched.
    expect((await inbox(bob)).items.find((n) => n.id === other)?.read).toBe(false);
  });

  it('records every notification write in the change feed, as the inbox shows it', async () => {
    const u = await member(app, 'feeder', [...RW, 'lists:read']);
    const id = (await notify(u.userId, 'trophy_earned', 1))!;
    await call(u, 'POST', `/me/notifications/${id}/read`);
    await call(u, 'POST', `/me/notifications/${id}/read`); // already read: no change
    await notify(u.userId, 'trophy_earned', 2);
    await call(u, 'POST', '/me/notifications/read-all');
    await call(u, 'PATCH', '/me/notification-preferences', { new_episode: { push: false } });
    const shown = (await inbox(u)).items;
    const changes = await changesOf(app, u.userId);
    const byId = (x: string) => shown.find((n) => n.id === x)!;
    expect(changes.map((c) => [c.resource, c.resource_id, c.op])).toEqual([
      ['notifications', id, 'upsert'],
      ['notifications', id, 'upsert'],
      ['notifications', shown[0]!.id, 'upsert'],
      ['notifications', shown[0]!.id, 'upsert'],
      ['notification_preferences', 'new_episode', 'upsert'],
    ]);
    expect(changes[0]!.data).toEqual({ ...byId(id), read: false, readAt: null });
    expect(changes[1]!.data).toEqual(byId(id));
    expect(changes[3]!.data).toEqual(shown[0]);
    expect(changes[4]!.data).toEqual({ kind: 'new_episode', inApp: true, push: false });

    // The feed and the snapshot serve them to a token with notifications:read only (once no open
    // transaction elsewhere on a shared server holds the feed's horizon back).
    await settled(app, u.userId);
    const feed = await call(u, 'GET', '/me/sync/changes?resources=notifications,notification_preferences');
    expect(feed.status).toBe(200);
    expect((feed.body.changes as { resource: string }[]).map((c) => c.resource)).toEqual(['notifications', 'notifications', 'notifications', 'notifications', 'notification_preferences']);
    const snapshot = await call(u, 'GET', '/me/sync/snapshot?resource=notifications');
    expect(snapshot.status).toBe(200);
    expect(new Set((snapshot.body.items as Wire[]).map((n) => n.id))).toEqual(new Set(shown.map((n) => n.id)));
    const listsOnly = await tokenWith(app, u, ['lists:read']);
    expectError(await call(listsOnly, 'GET', '/me/sync/snapshot?resource=notifications'), 403, 'insufficient_scope', { required_scope: 'notifications:read' });
    expectError(await call(listsOnly, 'GET', '/me/sync/changes?resources=notification_preferences'), 403, 'insufficient_scope', { required_scope: 'notifications:read' });
  });
});

describe('notification preferences', () => {
  it('lists every kind, on by default', async () => {
    const u = await member(app, 'prefsdefault', RW);
    const res = await call(u, 'GET', '/me/notification-preferences');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(ALL_ON);
  });

  it('changes only the kinds and channels given; a kind turned off is not recorded', async () => {
    const u = await member(app, 'prefs', RW);
    const res = await call(u, 'PATCH', '/me/notification-preferences', { list_liked: { inApp: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...ALL_ON, list_liked: { inApp: false, push: true } });
    const res2 = await call(u, 'PATCH', '/me/notification-preferences', { trophy_earned: { push: false }, list_liked: { push: false } });
    expect(res2.body).toEqual({ ...ALL_ON, list_liked: { inApp: false, push: false }, trophy_earned: { inApp: true, push: false } });
    expect((await call(u, 'GET', '/me/notification-preferences')).body).toEqual(res2.body);
    // Empty patch: nothing changes.
    expect((await call(u, 'PATCH', '/me/notification-preferences', {})).body).toEqual(res2.body);

    expect(await notify(u.userId, 'list_liked', 1)).toBeNull();
    expect(await notify(u.userId, 'trophy_earned', 2)).not.toBeNull(); // push off only: still in the inbox
    expect((await inbox(u)).items.map((n) => n.kind)).toEqual(['trophy_earned']);
    expect(await unread(u)).toEqual({ unread: 1 });

    await call(u, 'PATCH', '/me/notification-preferences', { list_liked: { inApp: true } });
    expect(await notify(u.userId, 'list_liked', 3)).not.toBeNull();
  });

  it('rejects unknown kinds and channels and non-boolean values with 400', async () => {
    const u = await member(app, 'prefsbad', RW);
    for (const body of [{ nope: { inApp: false } }, { list_liked: { email: false } }, { list_liked: { inApp: 'false' } }, { list_liked: { inApp: 0 } }, { list_liked: false }, { list_liked: null }]) {
      const res = await call(u, 'PATCH', '/me/notification-preferences', body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expectError(res, 400, 'invalid_request');
    }
    expect((await call(u, 'GET', '/me/notification-preferences')).body).toEqual(ALL_ON);
    expect(await changesOf(app, u.userId)).toEqual([]);
  });
});

describe('scopes', () => {
  const routes: [string, string, unknown, string][] = [
    ['GET', '/me/notifications', undefined, 'notifications:read'],
    ['GET', '/me/notifications/unread-count', undefined, 'notifications:read'],
    ['GET', '/me/notification-preferences', undefined, 'notifications:read'],
    ['POST', '/me/notifications/1/read', {}, 'notifications:write'],
    ['POST', '/me/notifications/read-all', {}, 'notifications:write'],
    ['PATCH', '/me/notification-preferences', { list_liked: { inApp: false } }, 'notifications:write'],
  ];

  it('needs the scope of each route (403 insufficient_scope naming it), and a token (401)', async () => {
    const readOnly = await tokenWith(app, alice, ['notifications:read']);
    const writeOnly = await tokenWith(app, alice, ['notifications:write']);
    const other = await tokenWith(app, alice, ['profile:read', 'lists:read', 'lists:write']);
    for (const [method, path, body, scope] of routes) {
      const lacking = scope === 'notifications:read' ? writeOnly : readOnly;
      expectError(await call(lacking, method, path, body), 403, 'insufficient_scope', { required_scope: scope });
      expectError(await call(other, method, path, body), 403, 'insufficient_scope', { required_scope: scope });
      expectError(await platform(app, null, method, path, body), 401, 'invalid_token');
    }
    // Each route answers with its own scope alone.
    expect((await call(readOnly, 'GET', '/me/notifications')).status).toBe(200);
    expect((await call(readOnly, 'GET', '/me/notifications/unread-count')).status).toBe(200);
    expect((await call(readOnly, 'GET', '/me/notification-preferences')).status).toBe(200);
    expect((await call(writeOnly, 'POST', '/me/notifications/read-all')).status).toBe(200);
    expect((await call(writeOnly, 'PATCH', '/me/notification-preferences', {})).status).toBe(200);
    expectError(await call(writeOnly, 'POST', '/me/notifications/999999/read'), 404, 'not_found');
  });
});
