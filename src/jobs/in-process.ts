// The in-process runner: a timer per job in this process (embedded mode, or JOB_QUEUE=in-process). Every
// instance runs every job on its own timer, so each job must tolerate overlapping runs across a fleet
// (they do: compare-and-set cursors, idempotent deletes, dedupe keys). A run still going when the next
// tick comes is not doubled.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { instanceName, runJob, type Job } from './job.ts';

export type RunningJobs = { stop(): Promise<void> };

/** How long stop() waits for a run in progress before it gives up on it. */
export const STOP_WAIT_MS = 10_000;

export function startInProcess(jobs: Job[], orm: MikroORM, log: Logger, opts: { clock?: () => Date; instance?: string } = {}): RunningJobs {
  const clock = opts.clock ?? (() => new Date());
  const instance = opts.instance ?? instanceName();
  const running = new Set<Promise<unknown>>();
  const timers = jobs
    .filter((job) => job.intervalMs > 0)
    .map((job) => {
      let current: Promise<unknown> | undefined;
      const tick = () => {
        if (current) return;
        current = runJob(job, orm, log, instance, clock())
          .catch(() => {}) // logged and recorded by runJob; the next tick tries again
          .finally(() => {
            running.delete(current!);
            current = undefined;
          });
        running.add(current);
      };
      const timer = setInterval(tick, job.intervalMs);
      timer.unref();
      return timer;
    });
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await waitBounded([...running], STOP_WAIT_MS);
    },
  };
}

/** Resolves when all settle or after `ms`, whichever comes first. */
export async function waitBounded(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (!promises.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
