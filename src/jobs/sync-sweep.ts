// Sync housekeeping every few minutes: idempotency records older than 24 hours are deleted (they already
// count as unseen), and the change log is pruned to what retention keeps. Runs in every instance: both
// deletes are idempotent, so overlapping runs across a fleet are harmless. `clock` lets tests move time.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { deleteExpiredRecords } from '../core/sync/idempotency.ts';
import { pruneChangeLog } from '../core/sync/retention.ts';

export const SYNC_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export async function runSyncSweep(em: EntityManager, now: Date): Promise<{ idempotencyRecords: number; changes: number }> {
  return { idempotencyRecords: await deleteExpiredRecords(em, now), changes: await pruneChangeLog(em, now) };
}

export function startSyncSweep(orm: MikroORM, log: Logger, opts: { intervalMs?: number; clock?: () => Date } = {}): () => void {
  const clock = opts.clock ?? (() => new Date());
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await runSyncSweep(orm.em.fork(), clock());
      if (deleted.idempotencyRecords || deleted.changes) log.info({ job: 'sync-sweep', deleted }, 'expired sync records deleted');
    } catch (err) {
      log.error({ job: 'sync-sweep', err }, 'sync sweep failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), opts.intervalMs ?? SYNC_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
