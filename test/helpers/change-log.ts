// What a user's writes left in change_log, oldest first (the feed's order), read straight from the table.
import { query } from '../../src/core/db/sql.ts';
import type { TestApp } from './app.ts';

export type LoggedChange = { resource: string; resource_id: string; op: string; data: Record<string, unknown> | null };

export function changesOf(app: TestApp, userId: string): Promise<LoggedChange[]> {
  return query<LoggedChange>(app.db.orm.em.fork(), {
    text: `select resource, resource_id, op, data from change_log where user_id = $1 order by xid, id`,
    params: [userId],
  });
}
