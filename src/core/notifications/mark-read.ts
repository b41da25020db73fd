// Marking notifications read. Both calls are idempotent: a notification already read keeps its first
// readAt and records no change (nor a live unread count). Another user's notification does not exist for
// the caller (404).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { presentNotification, type Notification } from './present.ts';
import { findNotification, markAllUnreadRead, markUnreadRead } from './repository.ts';
import { announceUnread } from './unread-event.ts';

const changeOf = (n: Notification) => ({ resource: 'notifications' as const, resourceId: n.id, op: 'upsert' as const, data: n });

/** The notification after marking it read. */
export function markRead(em: EntityManager, userId: string, id: string): Promise<Notification> {
  return transaction(em, async (tx) => {
    const updated = await markUnreadRead(tx, userId, id);
    if (updated) {
      const n = presentNotification(updated);
      await recordChanges(tx, userId, [changeOf(n)]);
      announceUnread(tx, userId);
      return n;
    }
    const existing = await findNotification(tx, userId, id);
    if (!existing) throw notFound(`Notification ${id}`);
    return presentNotification(existing);
  });
}

/** Marks every unread notification of the user read; returns how many it marked. */
export function markAllRead(em: EntityManager, userId: string): Promise<number> {
  return transaction(em, async (tx) => {
    const rows = await markAllUnreadRead(tx, userId);
    await recordChanges(tx, userId, rows.map((r) => changeOf(presentNotification(r))));
    if (rows.length > 0) announceUnread(tx, userId);
    return rows.length;
  });
}
