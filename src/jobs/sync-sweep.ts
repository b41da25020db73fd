// Sync housekeeping every few minutes: idempotency records older than 24 hours are deleted (they already
// count as unseen), and the change log is pruned to what retention keeps (90 days). Both deletes are
// idempotent, so overlapping runs are harmless.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { deleteExpiredRecords } from '../core/sync/idempotency.ts';
import { pruneChangeLog } from '../core/sync/retention.ts';
import { startInProcess } from './in-process.ts';
import type { Job } from './job.ts';

const SYNC_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export async function runSyncSweep(em: EntityManager, now: Date): Promise<{ idempotencyRecords: number; changes: number }> {
  return { idempotencyRecords: await deleteExpiredRecords(em, now), changes: await pruneChangeLog(em, now) };
}

export const syncSweepJob: Job = { name: 'sync-sweep', intervalMs: SYNC_SWEEP_INTERVAL_MS, run: runSyncSweep };

/** The job alone on an in-process timer, with a clock of the caller's: for tests that move time. */
export function startSyncSweep(orm: MikroORM, log: Logger, opts: { intervalMs?: number; clock?: () => Date } = {}): () => void {
  const running = startInProcess([{ ...syncSweepJob, intervalMs: opts.intervalMs ?? SYNC_SWEEP_INTERVAL_MS }], orm, log, opts.clock ? { clock: opts.clock } : {});
  return () => void running.stop();
}
