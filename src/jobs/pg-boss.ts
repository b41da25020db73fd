// The pg-boss runner (services mode): each job is a pg-boss queue in schema `pgboss` of the service's
// own PostgreSQL. Every instance ticks each job on its own timer and sends one job for the tick's slot
// (`sendThrottled`: pg-boss keeps one job per job name and slot of `intervalMs`, the slot computed from
// the database's clock); whichever instance's worker fetches it first runs it. So a fleet of any size runs
// each tick once. The queue policy `stately` keeps at most one run queued and one active, so a slow or
// retrying run never lets ticks pile up. A failed run (the job threw) is retried with exponential backoff
// (RETRY_LIMIT times); pg-boss keeps the failed job, and job_run keeps every attempt, for `jobs:status`.
import type { MikroORM } from '@mikro-orm/postgresql';
import { PgBoss, type JobWithMetadata } from 'pg-boss';
import type { Logger } from '../core/log.ts';
import { STOP_WAIT_MS, type RunningJobs } from './in-process.ts';
import { instanceName, runJob, type Job } from './job.ts';

export const PG_BOSS_SCHEMA = 'pgboss';
export const RETRY_LIMIT = 3;

/** First retry after a quarter of the interval (1 s to 60 s), doubling (with jitter) up to 10 minutes. */
export function retryDelaySeconds(intervalMs: number): number {
  return Math.min(60, Math.max(1, Math.round(intervalMs / 4000)));
}

/** Slots are whole seconds; sub-second intervals (tests) get one-second slots. */
const slotSeconds = (intervalMs: number) => Math.max(1, Math.round(intervalMs / 1000));

export async function startPgBoss(jobs: Job[], orm: MikroORM, log: Logger, databaseUrl: string): Promise<RunningJobs> {
  const active = jobs.filter((job) => job.intervalMs > 0);
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: PG_BOSS_SCHEMA,
    application_name: 'mts-jobs',
    // Its own small pool beside the app's: fetches, sends and maintenance only; the jobs use the app's.
    max: 3,
    // pg-boss's cron scheduler is not used (see above): no cron timers.
    schedule: false,
  });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  await boss.start();
  const instance = instanceName();
  const timers: NodeJS.Timeout[] = [];
  try {
    for (const job of active) {
      const retry = { retryLimit: RETRY_LIMIT, retryBackoff: true, retryDelay: retryDelaySeconds(job.intervalMs), retryDelayMax: 600 };
      if (await boss.getQueue(job.name)) await boss.updateQueue(job.name, retry);
      else await boss.createQueue(job.name, { policy: 'stately', ...retry });
      const pollingIntervalSeconds = Math.min(2, Math.max(0.5, job.intervalMs / 2000));
      await boss.work(job.name, { pollingIntervalSeconds, includeMetadata: true }, async (batch: JobWithMetadata[]) => {
        for (const queued of batch) {
          await runJob(job, orm, log, instance, new Date(), { queueJobId: queued.id, tick: queued.singletonOn, attempt: queued.retryCount });
        }
      });
      const slot = slotSeconds(job.intervalMs);
      const tick = () =>
        void boss.sendThrottled(job.name, null, null, slot).catch((err: unknown) => log.warn({ job: job.name, err }, 'job tick not queued'));
      const timer = setInterval(tick, job.intervalMs);
      timer.unref();
      timers.push(timer);
    }
  } catch (err) {
    for (const timer of timers) clearInterval(timer);
    await boss.stop({ graceful: false });
    throw err;
  }
  log.info({ jobs: active.map((j) => j.name), schema: PG_BOSS_SCHEMA }, 'jobs on pg-boss');
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      // Graceful: stops fetching, waits for the runs in progress (bounded), then closes its pool.
      await boss.stop({ graceful: true, timeout: STOP_WAIT_MS });
    },
  };
}
