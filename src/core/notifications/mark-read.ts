// Marking notifications read. Both calls are idempotent: a notification already read keeps its first
// readAt and records no change. Another user's notification does not exist for the caller (404).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { NOTIFICATION_COLUMNS, presentNotification, type Notification, type NotificationRow } from './present.ts';

const changeOf = (n: Notification) => ({ resource: 'notifications' as const, resourceId: n.id, op: 'upsert' as const, data: n });

/** The notification after marking it read. */
export function markRead(em: EntityManager, userId: string, id: string): Promise<Notification> {
  return transaction(em, async (tx) => {
    const [updated] = await query<NotificationRow>(tx, {
      text: `update notification set read_at = now() where id = $1 and user_id = $2 and read_at is null returning ${NOTIFICATION_COLUMNS}`,
      params: [id, userId],
    });
    if (updated) {
      const n = presentNotification(updated);
      await recordChanges(tx, userId, [changeOf(n)]);
      return n;
    }
    const [existing] = await query<NotificationRow>(tx, { text: `select ${NOTIFICATION_COLUMNS} from notification where id = $1 and user_id = $2`, params: [id, userId] });
    if (!existing) throw notFound(`Notification ${id}`);
    return presentNotification(existing);
  });
}

/** Marks every unread notification of the user read; returns how many it marked. */
export function markAllRead(em: EntityManager, userId: string): Promise<number> {
  return transaction(em, async (tx) => {
    const rows = await query<NotificationRow>(tx, {
      text: `update notification set read_at = now() where user_id = $1 and read_at is null returning ${NOTIFICATION_COLUMNS}`,
      params: [userId],
    });
    await recordChanges(tx, userId, rows.map((r) => changeOf(presentNotification(r))));
    return rows.length;
  });
}
