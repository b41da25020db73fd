// Sync housekeeping every few minutes: idempotency records older than 24 hours are deleted (they already
// count as unseen), and the change log is pruned to what retention keeps (90 days). Both deletes are
// idempotent, so overlapping runs are harmless.
import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteExpiredRecords } from '../core/sync/idempotency.ts';
import { pruneChangeLog } from '../core/sync/retention.ts';
import type { Job } from './job.ts';

const SYNC_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export async function runSyncSweep(em: EntityManager, now: Date): Promise<{ idempotencyRecords: number; changes: number }> {
  return { idempotencyRecords: await deleteExpiredRecords(em, now), changes: await pruneChangeLog(em, now) };
}

export const syncSweepJob: Job = { name: 'sync-sweep', intervalMs: SYNC_SWEEP_INTERVAL_MS, run: runSyncSweep };
