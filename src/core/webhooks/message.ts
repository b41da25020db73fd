// The messages: Standard Webhooks' JSON `{type, timestamp, data}`, one per change. A change's data is the
// user, its feed position (xid:id) and the change as the change feed serves it (`resource`,
// `resourceId`, `op`, `changedAt`, `data`: the item's latest settled state, so a receiver applying
// messages in order ends on the item as committed), so a receiver can share the feed's code.
import type { PageRow } from './repository.ts';
import { REVOKED_KIND, REVOKED_RESOURCE } from './kinds.ts';

export type Message = {
  /** The `webhook-id`: the same on every attempt, so a receiver can drop one it has seen. */
  id: string;
  type: string;
  userId: string | null;
  body: string;
};

const iso = (d: Date | string) => new Date(d).toISOString();

/** The message a change of the log becomes (a revocation of this app, or a change of a followed resource). */
export function changeMessage(row: PageRow): Message {
  const position = `${row.xid}:${row.id}`;
  const id = `msg_${row.id}`;
  if (row.resource === REVOKED_RESOURCE) {
    const body = { type: REVOKED_KIND, timestamp: iso(row.changed_at), data: { userId: row.user_id, position, clientId: row.resource_id } };
    return { id, type: REVOKED_KIND, userId: row.user_id, body: JSON.stringify(body) };
  }
  const op = row.op ?? 'delete';
  const type = `${row.resource}.${op}`;
  const change = { resource: row.resource, resourceId: row.resource_id, op, changedAt: iso(row.changed_at), data: row.data ?? null };
  return { id, type, userId: row.user_id, body: JSON.stringify({ type, timestamp: change.changedAt, data: { userId: row.user_id, position, change } }) };
}

/** A message sent on its owner's request to check a receiver: it changes nothing and is never retried. */
export function testMessage(subscriptionId: string, messageId: string, now: Date): Message {
  const body = { type: 'webhook.test', timestamp: now.toISOString(), data: { webhookId: subscriptionId } };
  return { id: messageId, type: 'webhook.test', userId: null, body: JSON.stringify(body) };
}
