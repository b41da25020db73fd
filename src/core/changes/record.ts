// Recording a change for the change feed. Call it with the transaction's EntityManager, in the same
// transaction as the write it describes: the change commits with the write or not at all.
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertChanges } from './repository.ts';
import type { ChangeResource } from './resources.ts';

export type Change = {
  resource: ChangeResource;
  resourceId: string | number;
  op: 'upsert' | 'delete';
  /** The record as the feed shows it (null for a delete). */
  data: Record<string, unknown> | null;
};

/** Records one or more changes of one user's data in one statement. */
export async function recordChanges(tx: EntityManager, userId: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  await insertChanges(
    tx,
    userId,
    changes.map((c) => ({ resource: c.resource, resource_id: String(c.resourceId), op: c.op, data: c.data })),
  );
}

export function recordChange(tx: EntityManager, userId: string, change: Change): Promise<void> {
  return recordChanges(tx, userId, [change]);
}
