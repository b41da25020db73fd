// The statements of idempotency keys (idempotency.ts), each built on a given query builder (`db(tx)` when
// they run).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { jsonb } from '../db/json.ts';
import type { StoredBulkResult } from '../schema/sync.ts';

type Key = { userId: string; clientId: string; operation: string; key: string };

/** Tries the transaction-scoped advisory lock named `name`, without waiting. */
export function claimLockQuery(k: Kysely<Tables>, name: string) {
  return k.selectNoFrom((eb) => eb.fn<boolean>('pg_try_advisory_xact_lock', [eb.fn('hashtextextended', [eb.val(name), eb.lit(0)])]).as('locked'));
}

/** The key's record written after `since`. */
export function readRecordQuery(k: Kysely<Tables>, key: Key, since: Date) {
  return k
    .selectFrom('sync_idempotency')
    .select(['body_hash', 'result'])
    .where('user_id', '=', key.userId)
    .where('client_id', '=', key.clientId)
    .where('operation', '=', key.operation)
    .where('idempotency_key', '=', key.key)
    .where('created_at', '>', since);
}

/** Records the key's result (replacing an expired record of the same key). */
export function recordResultQuery(k: Kysely<Tables>, key: Key, hash: string, result: StoredBulkResult, at: Date) {
  return k
    .insertInto('sync_idempotency')
    .values({
      user_id: key.userId,
      client_id: key.clientId,
      operation: key.operation,
      idempotency_key: key.key,
      body_hash: hash,
      result: jsonb(result),
      created_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'client_id', 'operation', 'idempotency_key']).doUpdateSet((eb) => ({
        body_hash: eb.ref('excluded.body_hash'),
        result: eb.ref('excluded.result'),
        created_at: eb.ref('excluded.created_at'),
      })),
    );
}

export async function tryKeyLock(tx: EntityManager, name: string): Promise<boolean> {
  const row = await claimLockQuery(db(tx), name).executeTakeFirst();
  return row?.locked === true;
}

export function readRecord(tx: EntityManager, key: Key, since: Date) {
  return readRecordQuery(db(tx), key, since).executeTakeFirst();
}

export async function writeRecord(tx: EntityManager, key: Key, hash: string, result: StoredBulkResult, at: Date): Promise<void> {
  await recordResultQuery(db(tx), key, hash, result, at).execute();
}

/** Deletes the records written at or before `cutoff`; the number deleted. */
export async function deleteRecordsBefore(em: EntityManager, cutoff: Date): Promise<number> {
  const r = await db(em).deleteFrom('sync_idempotency').where('created_at', '<=', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
