// Reading the inbox newest first, `(created_at desc, id desc)`, in keyset pages: a page
// starts strictly after the last notification of the one before, so notifications arriving meanwhile
// never push others into a page twice. The cursor is bound to the `unread` filter; `limit` may change.
// A notification marked read while paging with `unread=true` simply no longer matches later pages.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlParams } from '../db/sql.ts';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText } from '../paging/cursor.ts';
import { NOTIFICATION_COLUMNS, presentNotification, type Notification, type NotificationRow } from './present.ts';

export type InboxQuery = { cursor?: string | undefined; limit: number; unread?: boolean | undefined };
export type InboxPage = { items: Notification[]; nextCursor?: string };

/** Position after a notification: its created_at to the microsecond, and its id. */
type Position = [string, string];
const isPosition = (p: unknown): p is Position => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

export async function listNotifications(em: EntityManager, userId: string, q: InboxQuery): Promise<InboxPage> {
  const bound = { unread: q.unread };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  const s = sqlParams();
  const where = [`n.user_id = ${s.p(userId)}`];
  if (q.unread !== undefined) where.push(q.unread ? `n.read_at is null` : `n.read_at is not null`);
  if (after) where.push(`(n.created_at, n.id) < (${s.p(after[0])}::timestamptz, ${s.p(after[1])}::bigint)`);
  const rows = await query<NotificationRow & { position_at: string }>(em, {
    text: `select ${NOTIFICATION_COLUMNS}, to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at
      from notification n where ${where.join(' and ')} order by n.created_at desc, n.id desc limit ${s.p(q.limit + 1)}`,
    params: s.params,
  });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(presentNotification),
    ...(rows.length > q.limit && last ? { nextCursor: encodeCursor([last.position_at, last.id], bound) } : {}),
  };
}

export async function countUnread(em: EntityManager, userId: string): Promise<number> {
  const [row] = await query<{ n: number }>(em, { text: `select count(*)::int as n from notification where user_id = $1 and read_at is null`, params: [userId] });
  return row?.n ?? 0;
}
