// Recording a notification, for every producer (list invitations, likes, the new-episode job, trophies).
// It runs in the producer's transaction, so the notification commits with the event that caused it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import type { NotificationKind } from './kinds.ts';
import { presentNotification } from './present.ts';
import { insertNotification } from './repository.ts';
import { announceUnread } from './unread-event.ts';

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

/**
 * Records a notification in the caller's transaction (one started by transaction()). Returns its id, or
 * null when the user turned this kind off or `dedupeKey` was already recorded for the user. Also records
 * the change-feed row for it, and the user's unread count goes out on the live stream once it commits.
 */
export async function recordNotification(tx: EntityManager, n: NewNotification): Promise<string | null> {
  // One statement: not inserted when the user turned the kind off (in-app), nor when the key exists.
  const row = await insertNotification(tx, { ...n, dedupeKey: n.dedupeKey ?? null });
  if (!row) return null;
  const notification = presentNotification(row);
  await recordChange(tx, n.userId, { resource: 'notifications', resourceId: notification.id, op: 'upsert', data: notification });
  announceUnread(tx, n.userId);
  return notification.id;
}
