// What a background job is, and one run of it. Both runners (in-process.ts, pg-boss.ts) go through
// runJob, so every run is timed into the metrics, written to job_run and logged the same way.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { deleteJobRunsOlderThan, insertJobRun } from '../core/job-runs/repository.ts';
import type { Logger } from '../core/log.ts';
import { recordJobRun } from '../core/metrics/registry.ts';

/** What a run did, as counts (rows deleted, lists synced, ...); logged when any is not zero. */
export type JobSummary = Record<string, number>;

export type Job = {
  /** Queue name in pg-boss, `job` label in logs and metrics. Lowercase and dashes. */
  name: string;
  /** How often it runs (ms). 0: not at all in this instance. */
  intervalMs: number;
  run(em: EntityManager, now: Date): Promise<JobSummary>;
};

/** Where a run came from: the pg-boss job and its slot, or nothing for an in-process timer. */
export type RunOrigin = { queueJobId?: string | undefined; tick?: Date | null | undefined; attempt?: number | undefined };

/** This process, as job_run names it: host, pid and a random part (several test apps share a pid). */
export function instanceName(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

const KEEP_RUNS_DAYS = 7;

/**
 * Runs the job once and records the run. A failure is recorded, then thrown again: pg-boss retries on
 * a throw; the in-process runner logs it and waits for its next tick.
 */
export async function runJob(job: Job, orm: MikroORM, log: Logger, instance: string, now: Date, origin: RunOrigin = {}): Promise<JobSummary> {
  const started = new Date();
  const t0 = performance.now();
  let summary: JobSummary | undefined;
  let error: unknown;
  try {
    summary = await job.run(orm.em.fork(), now);
  } catch (err) {
    error = err;
  }
  const outcome = error === undefined ? 'ok' : 'failed';
  recordJobRun(job.name, outcome, (performance.now() - t0) / 1000);
  if (error !== undefined) log.error({ job: job.name, attempt: origin.attempt ?? 0, err: error }, 'job failed');
  else if (Object.values(summary!).some((n) => n > 0)) log.info({ job: job.name, ...summary }, 'job done');
  await recordRun(orm, { job: job.name, instance, started, outcome, summary, error, origin }).catch((err: unknown) =>
    log.warn({ job: job.name, err }, 'job run not recorded'),
  );
  if (error !== undefined) throw error;
  return summary!;
}

async function recordRun(
  orm: MikroORM,
  r: { job: string; instance: string; started: Date; outcome: 'ok' | 'failed'; summary: JobSummary | undefined; error: unknown; origin: RunOrigin },
): Promise<void> {
  const em = orm.em.fork();
  const message = r.error === undefined ? null : r.error instanceof Error ? r.error.message : String(r.error);
  await insertJobRun(em, {
    job: r.job,
    instance: r.instance,
    queueJobId: r.origin.queueJobId ?? null,
    tick: r.origin.tick ?? null,
    attempt: r.origin.attempt ?? 0,
    startedAt: r.started,
    outcome: r.outcome,
    summary: r.summary ?? null,
    error: message,
  });
  await deleteJobRunsOlderThan(em, r.job, KEEP_RUNS_DAYS);
}
