// Idempotency keys of bulk writes, keyed per app, user, operation and key (the Idempotency-Key
// parameter of the platform OpenAPI document; docs/decisions.md, Bulk sync and the change feed).
// Everything happens inside the batch's own transaction:
//   - a transaction-scoped advisory lock on the key marks it "in progress": a request that cannot take
//     it at once gets 409 request_in_progress (it never waits, so no open transaction waits on another);
//   - once the lock is held, a record younger than 24 hours is replayed (same body) or refused (409
//     idempotency_conflict); an older one counts as unseen;
//   - the result is recorded in the same transaction as the writes, so they commit together or not at
//     all. A crash before the commit leaves the key unseen, and its retry applies the batch once; so the
//     outcome is always known and idempotency_indeterminate never arises here.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../errors.ts';
import type { StoredBulkResult } from '../schema/sync.ts';
import { deleteRecordsBefore, readRecord, tryKeyLock, writeRecord } from './idempotency-repository.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyScope = { userId: string; clientId: string; operation: string; key: string };

/** JSON with object keys sorted at every level: the same body in another key order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('base64url');
}

export const lockName = (s: IdempotencyScope) => `sync:${s.clientId}:${s.userId}:${s.operation}:${s.key}`;

/**
 * Takes the key for this transaction. Answers the stored result to replay, or null when the key is
 * unseen (or its record expired) and the batch is to be applied.
 */
export async function claimKey(tx: EntityManager, scope: IdempotencyScope, hash: string, now: Date): Promise<StoredBulkResult | null> {
  if (!(await tryKeyLock(tx, lockName(scope)))) {
    throw new ApiError('request_in_progress', 'A request with this Idempotency-Key is still running; retry the same key shortly');
  }
  // A statement of its own after the lock: its snapshot sees a record committed by the lock's last holder.
  const record = await readRecord(tx, scope, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
  if (!record) return null;
  if (record.body_hash !== hash) {
    throw new ApiError('idempotency_conflict', 'This Idempotency-Key was used with a different body; use a new key for a new batch');
  }
  return record.result;
}

/** Records the result with the writes (replacing an expired record of the same key). */
export async function recordResult(tx: EntityManager, scope: IdempotencyScope, hash: string, result: StoredBulkResult, now: Date): Promise<void> {
  await writeRecord(tx, scope, hash, result, now);
}

/** Deletes records older than 24 hours (they already count as unseen); the number deleted. */
export function deleteExpiredRecords(em: EntityManager, now: Date): Promise<number> {
  return deleteRecordsBefore(em, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
}
