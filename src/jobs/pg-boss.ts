// The pg-boss runner (services mode): each job is a pg-boss queue in schema `pgboss` of the service's
// own PostgreSQL. Every instance ticks each job on its own timer and sends one job for the tick's slot
// (`sendThrottled`: pg-boss keeps one job per job name and slot of `intervalMs`, the slot computed from
// the database's clock); whichever instance's worker fetches it first runs it. So a fleet of any size runs
// each tick once. Which instance that is, is pg-boss's choice: with fixed-rate ticks and polls, one
// instance may take every tick while the others stand by. The queue policy `stately` keeps at most one
// run queued and one active, so a slow or retrying run never lets ticks pile up; and since an active run
// holds back every later tick, each queue has an expiry tied to its interval (timing.ts): a run that hangs
// is failed by its own worker, a run whose instance died is failed by any instance's supervise pass, and
// either is retried. A failed run (the job threw or expired) is retried with exponential backoff
// (RETRY_LIMIT times); pg-boss keeps the failed job, and job_run keeps every attempt, for `jobs:status`.
import type { MikroORM } from '@mikro-orm/postgresql';
import { PgBoss, type JobWithMetadata } from 'pg-boss';
import type { Logger } from '../core/log.ts';
import { SESSION_OPTIONS } from '../core/db/orm.ts';
import { jobHealth, RunsInFlight, stuckInPgBoss } from './health.ts';
import { STOP_WAIT_MS, type RunningJobs } from './in-process.ts';
import { instanceName, runJob, type Job } from './job.ts';
import { expireSeconds, pollingSeconds, superviseSeconds } from './timing.ts';

export const PG_BOSS_SCHEMA = 'pgboss';
export const RETRY_LIMIT = 3;

/** First retry after a quarter of the interval (1 s to 60 s), doubling (with jitter) up to 10 minutes. */
function retryDelaySeconds(intervalMs: number): number {
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
    options: SESSION_OPTIONS,
    // Its own small pool beside the app's: fetches, sends and maintenance only; the jobs use the app's.
    max: 3,
    // pg-boss's cron scheduler is not used (see above): no cron timers.
    schedule: false,
    // The pass that fails expired runs of dead instances, sized to the shortest interval (timing.ts).
    superviseIntervalSeconds: superviseSeconds(active.map((j) => j.intervalMs)),
    monitorIntervalSeconds: superviseSeconds(active.map((j) => j.intervalMs)),
  });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  // A handler that overran its expiry, among others: the run was failed and will be retried.
  boss.on('warning', (warning: { message: string; data?: unknown }) => log.warn({ data: warning.data }, warning.message));
  await boss.start();
  const instance = instanceName();
  const inFlight = new RunsInFlight();
  const timers: NodeJS.Timeout[] = [];
  try {
    for (const job of active) {
      const options = {
        retryLimit: RETRY_LIMIT,
        retryBackoff: true,
        retryDelay: retryDelaySeconds(job.intervalMs),
        retryDelayMax: 600,
        expireInSeconds: expireSeconds(job.intervalMs),
      };
      // Set on every start: an interval changed since the queue was made changes its expiry too.
      if (await boss.getQueue(job.name)) await boss.updateQueue(job.name, options);
      else await boss.createQueue(job.name, { policy: 'stately', ...options });
      const pollingIntervalSeconds = pollingSeconds(job.intervalMs);
      await boss.work(job.name, { pollingIntervalSeconds, includeMetadata: true }, async (batch: JobWithMetadata[]) => {
        for (const queued of batch) {
          const origin = { queueJobId: queued.id, tick: queued.singletonOn, attempt: queued.retryCount };
          await inFlight.track(job.name, () => runJob(job, orm, log, instance, new Date(), origin));
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
  const started = new Date();
  return {
    health: async () => {
      const em = orm.em.fork();
      const stuck = await stuckInPgBoss(em, PG_BOSS_SCHEMA, active);
      // Runs pg-boss failed at their expiry are no longer active there, but may still be going here.
      const expiry = new Map(active.map((j) => [j.name, expireSeconds(j.intervalMs) * 1000]));
      for (const [name, n] of inFlight.over((name) => expiry.get(name)!)) stuck.set(name, (stuck.get(name) ?? 0) + n);
      return jobHealth(em, active, stuck, started);
    },
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      // Graceful: stops fetching, waits for the runs in progress (bounded), then closes its pool.
      await boss.stop({ graceful: true, timeout: STOP_WAIT_MS });
    },
  };
}
