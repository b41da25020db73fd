// The wire shape of a notification: the inbox, the change feed and the snapshot show the same record.
import type { NotificationKind } from './kinds.ts';
import type { NotificationRecord } from './repository.ts';

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

export function presentNotification(row: NotificationRecord): Notification {
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
