// The background jobs of one instance, started after the server listens and stopped on close.
//
// A job (job.ts) is { name, intervalMs, run(em, now) -> summary }; add it to jobsFor below. Two runners
// behind one interface (JOB_QUEUE, src/config.ts):
// - in-process (in-process.ts; embedded mode): a timer per job in each process, as a single process needs.
// - pg-boss (pg-boss.ts; services mode): one pg-boss queue per job in schema `pgboss`; each tick runs
//   once across the fleet, a failed run is retried with backoff, failures stay in pg-boss and job_run.
//
// Observing runs (tests, operators): every run, in both modes, writes one row to `job_run`
// (migrations/Migration20261122090000Jobs.ts): job, instance (host:pid:random, one per started app),
// queue_job_id and tick (the pg-boss job and its slot; null in-process), attempt (0 first try, n the
// n-th retry), started_at, finished_at, outcome ('ok' | 'failed'), summary (jsonb), error.
// "Runs once per tick across instances" in services mode:
//   select tick, count(*) from job_run where job = 'trophies' and attempt = 0 group by tick having count(*) > 1
// returns no row, while `select count(distinct instance) from job_run` shows which instances ran some.
// A test makes the trophy job tick every second with TROPHY_INTERVAL_MS=1000 on both apps (pg-boss
// slots are whole seconds). pg-boss's own record is pgboss.job (name, state, singleton_on, retry_count,
// output); `npm run --silent admin -- jobs:status` prints both (src/cli/jobs-status.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Importers } from '../core/import/importers.ts';
import type { Logger } from '../core/log.ts';
import { watchJobs } from '../core/metrics/registry.ts';
import { startInProcess, type RunningJobs } from './in-process.ts';
import type { Job } from './job.ts';
import { catalogRefreshJob } from './catalog-refresh.ts';
import { importJob } from './imports.ts';
import { listSyncJob } from './list-sync.ts';
import { newEpisodesJob } from './new-episodes.ts';
import { oauthSweepJob } from './oauth-sweep.ts';
import { startPgBoss } from './pg-boss.ts';
import { playbackSweepJob } from './playback-sweep.ts';
import { recommendationsJob } from './recommendations.ts';
import { statsRollupJob } from './stats-rollup.ts';
import { syncSweepJob } from './sync-sweep.ts';
import { trendingJob } from './trending.ts';
import { trophyJob } from './trophies.ts';
import { startWebhookWake, WEBHOOK_JOB, webhookJob } from './webhooks.ts';

export type { RunningJobs } from './in-process.ts';

/** `webhooks`: when the jobs include the webhook deliverer, its settings (writes nudge it between ticks). */
export type JobsConfig = Pick<Config, 'trophyIntervalMs' | 'importIntervalMs' | 'jobQueue' | 'databaseUrl'> & Partial<Pick<Config, 'webhooks'>>;

type JobIntervals = Pick<Config, 'trophyIntervalMs' | 'importIntervalMs' | 'catalogRefreshIntervalMs' | 'catalogRefreshBatch' | 'webhooks'>;

/** Every job of the service, with this configuration's intervals. `importers`: the import job's (default the real readers). */
export function jobsFor(config: JobIntervals, log?: Logger, importers?: Importers): Job[] {
  return [
    oauthSweepJob, syncSweepJob, playbackSweepJob, listSyncJob, newEpisodesJob, trendingJob, recommendationsJob, statsRollupJob,
    trophyJob(config.trophyIntervalMs), importJob(config.importIntervalMs, { log, importers }),
    catalogRefreshJob(config.catalogRefreshIntervalMs, config.catalogRefreshBatch),
    webhookJob(config.webhooks),
  ];
}

/** `jobs`: the service's (jobsFor), or a test's own. */
export async function startJobs(orm: MikroORM, log: Logger, config: JobsConfig, jobs: Job[]): Promise<RunningJobs> {
  const jobLog = log.child({ component: 'jobs' });
  const running = config.jobQueue === 'pg-boss' ? await startPgBoss(jobs, orm, jobLog, config.databaseUrl!) : startInProcess(jobs, orm, jobLog);
  // /metrics reads each job's last success and stuck runs while the runner runs.
  const unwatch = watchJobs(() => running.health());
  // Writes nudge this instance's webhook deliverer between the job's ticks.
  const webhooks = config.webhooks && jobs.some((j) => j.name === WEBHOOK_JOB && j.intervalMs > 0) ? startWebhookWake(orm, jobLog, config.webhooks) : null;
  return {
    health: () => running.health(),
    stop: async () => {
      unwatch();
      await webhooks?.stop();
      await running.stop();
    },
  };
}
