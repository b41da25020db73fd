// Recording a notification, for every producer (list invitations, likes, the new-episode job, trophies).
// It runs in the producer's transaction, so the notification commits with the event that caused it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import type { NotificationKind } from './kinds.ts';
import { NOTIFICATION_COLUMNS, presentNotification, type NotificationRow } from './present.ts';

export type { NotificationKind } from './kinds.ts';

export type NewNotification = {
  userId: string;
  kind: NotificationKind;
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** Same key for the same user again: not recorded (a retried producer or a re-run job). */
  dedupeKey?: string;
};

// One statement: not inserted when the user turned the kind off (in-app), nor when the key exists.
const INSERT_NOTIFICATION = `insert into notification (user_id, kind, title, body, data, dedupe_key)
select $1::uuid, $2, $3, $4, $5::jsonb, $6
where not exists (select 1 from notification_preference p where p.user_id = $1::uuid and p.kind = $2 and not p.in_app)
on conflict (user_id, dedupe_key) do nothing
returning ${NOTIFICATION_COLUMNS}`;

/** Records a notification in the caller's transaction. Returns its id, or null when the user turned this kind off or `dedupeKey` was already recorded for the user. Also records the change-feed row for it. */
export async function recordNotification(tx: EntityManager, n: NewNotification): Promise<string | null> {
  const [row] = await query<NotificationRow>(tx, {
    text: INSERT_NOTIFICATION,
    params: [n.userId, n.kind, n.title, n.body, JSON.stringify(n.data), n.dedupeKey ?? null],
  });
  if (!row) return null;
  const notification = presentNotification(row);
  await recordChange(tx, n.userId, { resource: 'notifications', resourceId: notification.id, op: 'upsert', data: notification });
  return notification.id;
}
