// Reading the inbox newest first, `(created_at desc, id desc)`, in keyset pages: a page
// starts strictly after the last notification of the one before, so notifications arriving meanwhile
// never push others into a page twice. The cursor is bound to the `unread` filter; `limit` may change.
// A notification marked read while paging with `unread=true` simply no longer matches later pages.
import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText } from '../paging/cursor.ts';
import { presentNotification, type Notification } from './present.ts';
import { inboxPage, unreadCount } from './repository.ts';

export type InboxQuery = { cursor?: string | undefined; limit: number; unread?: boolean | undefined };
export type InboxPage = { items: Notification[]; nextCursor?: string };

/** Position after a notification: its created_at to the microsecond, and its id. */
type Position = [string, string];
const isPosition = (p: unknown): p is Position => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

export async function listNotifications(em: EntityManager, userId: string, q: InboxQuery): Promise<InboxPage> {
  const bound = { unread: q.unread };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  const rows = await inboxPage(em, userId, { unread: q.unread, after, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(presentNotification),
    ...(rows.length > q.limit && last ? { nextCursor: encodeCursor([last.position_at, last.id], bound) } : {}),
  };
}

export function countUnread(em: EntityManager, userId: string): Promise<number> {
  return unreadCount(em, userId);
}
