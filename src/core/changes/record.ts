// Recording a change for the change feed. Call it with the transaction's EntityManager, in the same
// transaction as the write it describes: the change commits with the write or not at all.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import type { ChangeResource } from './resources.ts';

export type Change = {
  resource: ChangeResource;
  resourceId: string | number;
  op: 'upsert' | 'delete';
  /** The record as the feed shows it (null for a delete). */
  data: Record<string, unknown> | null;
};

/**
 * The insert of change records selected from `rows` (a query or CTE with columns user_id, resource,
 * resource_id, op, data): for a write that records its changes in its own statement (a data-modifying
 * CTE), so the record needs no round trip of its own. Same transaction, same rule as recordChanges.
 */
export function insertChangesFrom(rows: string): string {
  return `insert into change_log (user_id, resource, resource_id, op, data)
select c.user_id, c.resource, c.resource_id, c.op, c.data from ${rows} c`;
}

const INSERT_CHANGES = insertChangesFrom(`(select $1::uuid as user_id, r.resource, r.resource_id, r.op, r.data
  from json_to_recordset($2::json) as r(resource text, resource_id text, op text, data jsonb))`);

/** Records one or more changes of one user's data in one statement. */
export async function recordChanges(tx: EntityManager, userId: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  const rows = changes.map((c) => ({ resource: c.resource, resource_id: String(c.resourceId), op: c.op, data: c.data }));
  await query(tx, { text: INSERT_CHANGES, params: [userId, JSON.stringify(rows)] });
}

export function recordChange(tx: EntityManager, userId: string, change: Change): Promise<void> {
  return recordChanges(tx, userId, [change]);
}
