// The in-process runner: a timer per job in this process (embedded mode, or JOB_QUEUE=in-process). Every
// instance runs every job on its own timer, so each job must tolerate overlapping runs across a fleet
// (they do: compare-and-set cursors, idempotent deletes, dedupe keys). A run still going when the next
// tick comes is not doubled, up to its expiry (timing.ts): a run that hangs past it is given up on (it is
// logged, counted as stuck until it settles) and the next tick runs, so a hung run never stops the job.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { jobHealth, RunsInFlight, type JobHealth } from './health.ts';
import { instanceName, runJob, type Job } from './job.ts';
import { expireSeconds } from './timing.ts';

export type RunningJobs = {
  stop(): Promise<void>;
  /** Each job's last success and stuck runs, for /metrics (jobs/index.ts). */
  health(): Promise<JobHealth[]>;
};

/** How long stop() waits for a run in progress before it gives up on it. */
export const STOP_WAIT_MS = 10_000;

type Run = { startedAt: number; done: Promise<unknown> };

export function startInProcess(jobs: Job[], orm: MikroORM, log: Logger, opts: { clock?: () => Date; instance?: string } = {}): RunningJobs {
  const clock = opts.clock ?? (() => new Date());
  const instance = opts.instance ?? instanceName();
  const started = new Date();
  // Every run not yet settled: the current one of each job and any given up on.
  const running = new Set<Run>();
  const inFlight = new RunsInFlight();
  const active = jobs.filter((job) => job.intervalMs > 0);
  const timers = active.map((job) => {
    let current: Run | undefined;
    const expireMs = expireSeconds(job.intervalMs) * 1000;
    const tick = () => {
      if (current) {
        const ranMs = Date.now() - current.startedAt;
        if (ranMs < expireMs) return;
        log.warn({ job: job.name, seconds: Math.round(ranMs / 1000) }, 'job run overran its expiry: later ticks go on without it');
        current = undefined;
      }
      const run: Run = { startedAt: Date.now(), done: Promise.resolve() };
      run.done = inFlight
        .track(job.name, () => runJob(job, orm, log, instance, clock()))
        .catch(() => {}) // logged and recorded by runJob; the next tick tries again
        .finally(() => {
          running.delete(run);
          if (current === run) current = undefined;
        });
      current = run;
      running.add(run);
    };
    const timer = setInterval(tick, job.intervalMs);
    timer.unref();
    return timer;
  });
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await waitBounded([...running].map((r) => r.done), STOP_WAIT_MS);
    },
    health: async () => {
      const interval = new Map(active.map((j) => [j.name, j.intervalMs]));
      return jobHealth(orm.em.fork(), active, inFlight.over((name) => interval.get(name)!), started);
    },
  };
}

/** Resolves when all settle or after `ms`, whichever comes first. */
async function waitBounded(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (!promises.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
