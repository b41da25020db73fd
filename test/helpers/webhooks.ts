// Outbound webhooks in tests: an app with its owner's token, users connected to it, subscriptions made
// through the API, and what a receiver got, verified with the Standard Webhooks reference package and
// checked against the change log.
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { registerOwnedApp } from '../../src/core/apps/owned.ts';
import { query } from '../../src/core/db/sql.ts';
import type { TestApp } from './app.ts';
import { makeUser } from './oauth.ts';
import { ok, platform } from './seed.ts';
import { issueConnectedToken, issueToken } from './tokens.ts';
import type { Received } from './webhook-receiver.ts';

/** The deliverer at test speed, and loopback receivers allowed. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_INTERVAL_MS: '250',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '200',
  WEBHOOK_PAUSE_AFTER_FAILURES: '6',
  WEBHOOK_PAUSE_AFTER_MS: '0',
};

const APP_SCOPES = ['profile:read', 'profile:write', 'history:read', 'history:write', 'ratings:read', 'ratings:write', 'playback:read', 'playback:write'];

export type OwnedTestApp = { clientId: string; ownerId: string; ownerToken: string };

/** A developer's app (owned by a new user) and a token of it for its owner, holding profile:read and profile:write. */
export async function ownedApp(app: TestApp, owner: string, scopes = APP_SCOPES): Promise<OwnedTestApp> {
  const user = await makeUser(app, owner);
  const made = await registerOwnedApp(app.db.orm.em.fork(), user.id, { name: `${owner}'s tracker`, redirectUris: ['http://127.0.0.1:8799/callback'], scopes, confidential: false });
  const ownerToken = await issueToken(app, { userId: user.id, clientId: made.client_id, scope: 'profile:read profile:write' });
  return { clientId: made.client_id, ownerId: user.id, ownerToken };
}

export type Connected = { userId: string; username: string; token: string };

/** A new user who connected the app with these scopes (a token and the grant's row). */
export async function connect(app: TestApp, to: OwnedTestApp, username: string, scopes: string[]): Promise<Connected> {
  const user = await makeUser(app, username);
  return { userId: user.id, username, token: await issueConnectedToken(app, { userId: user.id, clientId: to.clientId, scope: scopes.join(' ') }) };
}

export type Subscription = { id: string; secret: string } & Record<string, unknown>;

export async function subscribe(app: TestApp, to: OwnedTestApp, url: string, kinds: string[]): Promise<Subscription> {
  const res = await platform(app, to.ownerToken, 'POST', '/apps/me/webhooks', { url, kinds });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Subscription;
}

export function getWebhook(app: TestApp, to: OwnedTestApp, id: string) {
  return ok(platform(app, to.ownerToken, 'GET', `/apps/me/webhooks/${id}`));
}

export type Message = {
  id: string;
  type: string;
  answered: number;
  userId: string;
  /** The change's place in the log: xid and id. */
  xid: bigint;
  changeId: bigint;
  body: Record<string, unknown>;
  data: Record<string, unknown>;
};

/** Every request verified with the secret (the reference package throws on a bad one), as messages in arrival order. */
export function verified(received: readonly Received[], secret: string): Message[] {
  const wh = new Webhook(secret);
  return received.map((r) => {
    const body = wh.verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
    const data = body.data as Record<string, unknown>;
    const [xid, id] = String(data.position ?? '0:0').split(':');
    return { id: String(r.headers['webhook-id']), type: String(body.type), answered: r.answered, userId: String(data.userId ?? ''), xid: BigInt(xid!), changeId: BigInt(id!), body, data };
  });
}

export type Expected = { id: string; user_id: string; xid: string; resource: string };

/** The changes of these users in these resources committed after `afterId`, in feed order. */
export function expectedChanges(app: TestApp, users: string[], resources: string[], afterId = '0'): Promise<Expected[]> {
  return query<Expected>(app.db.orm.em.fork(), {
    text: `select c.id::text, c.user_id, c.xid::text, c.resource from change_log c where c.user_id = any($1::uuid[]) and c.resource = any($2::text[]) and c.id > $3::bigint order by c.xid, c.id`,
    params: [users, resources, afterId],
  });
}

/** The newest change id now (a test's writes come after it). */
export async function lastChangeId(app: TestApp): Promise<string> {
  const [row] = await query<{ id: string }>(app.db.orm.em.fork(), { text: `select coalesce(max(id), 0)::text as id from change_log`, params: [] });
  return row!.id;
}

/**
 * Every expected change arrived (2xx) at least once, and in order per user: each message of a user
 * went out only once every change of that user before it had been answered 2xx.
 */
export function expectEveryChangeInOrder(messages: readonly Message[], expected: readonly Expected[]): void {
  const byUser = new Map<string, string[]>();
  for (const e of expected) byUser.set(e.user_id, [...(byUser.get(e.user_id) ?? []), `msg_${e.id}`]);
  const delivered = new Set<string>();
  for (const m of messages) {
    const order = byUser.get(m.userId);
    if (!order) continue;
    const at = order.indexOf(m.id);
    expect(at, `${m.id} is one of ${m.userId}'s expected changes`).toBeGreaterThanOrEqual(0);
    const missing = order.slice(0, at).filter((id) => !delivered.has(id));
    expect(missing, `${m.id} went out before ${missing[0]} was delivered`).toEqual([]);
    if (m.answered >= 200 && m.answered < 300) delivered.add(m.id);
  }
  const lost = expected.map((e) => `msg_${e.id}`).filter((id) => !delivered.has(id));
  expect(lost, 'changes never delivered').toEqual([]);
}
