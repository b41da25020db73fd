// The live `notifications.unread` event: every write that changes how many of a user's notifications are
// unread (a notification recorded, one or all marked read) announces the new count on the user's event
// stream once its transaction commits, one event per user and transaction whatever it wrote (a job that
// records several notifications for a user sends one count). Streams send it only to tokens with
// notifications:read (events/scopes.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { appendOnCommit } from '../events/stream-log.ts';
import { NOTIFICATIONS_UNREAD } from '../events/scopes.ts';
import { unreadCount } from './repository.ts';

export function announceUnread(tx: EntityManager, userId: string): void {
  appendOnCommit(tx, userId, NOTIFICATIONS_UNREAD, async (t) => [{ name: NOTIFICATIONS_UNREAD, data: { unread: await unreadCount(t, userId) } }]);
}
