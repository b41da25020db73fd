// The wire shape of a notification: the inbox, the change feed and the snapshot show the same record.
import type { NotificationKind } from './kinds.ts';

export type NotificationRow = {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  data: Record<string, unknown>;
  read_at: Date | string | null;
  created_at: Date | string;
};

export type Notification = {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  data: Record<string, unknown>;
  read: boolean;
  readAt: string | null;
  createdAt: string;
};

/** The columns presentNotification reads, for `select ${NOTIFICATION_COLUMNS} from notification`. */
export const NOTIFICATION_COLUMNS = `id::text as id, kind, title, body, data, read_at, created_at`;

export function presentNotification(row: NotificationRow): Notification {
  return {
    id: String(row.id),
    kind: row.kind,
    title: row.title,
    body: row.body,
    data: row.data ?? {},
    read: row.read_at !== null,
    readAt: row.read_at === null ? null : new Date(row.read_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
  };
}
