// The statements of job_run, the record of every background job's runs (src/jobs): written by each run,
// read by the health figures (/metrics, jobs:status) and by `jobs:status`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { jsonb, jsonbOrNull } from '../db/json.ts';

export type JobRunWrite = {
  job: string;
  instance: string;
  queueJobId: string | null;
  tick: Date | null;
  attempt: number;
  startedAt: Date;
  outcome: 'ok' | 'failed';
  summary: Record<string, number> | null;
  error: string | null;
};

/** Records a run that ends now. */
export async function insertJobRun(em: EntityManager, r: JobRunWrite): Promise<void> {
  await db(em)
    .insertInto('job_run')
    .values((eb) => ({
      job: r.job,
      instance: r.instance,
      queue_job_id: r.queueJobId,
      tick: r.tick,
      attempt: r.attempt,
      started_at: r.startedAt,
      finished_at: eb.fn<Date>('now'),
      outcome: r.outcome,
      summary: jsonbOrNull(r.summary),
      error: r.error,
    }))
    .execute();
}

/** Deletes the job's runs started more than `days` days ago. */
export async function deleteJobRunsOlderThan(em: EntityManager, job: string, days: number): Promise<void> {
  await db(em)
    .deleteFrom('job_run')
    .where('job', '=', job)
    // make_interval's positional arguments are (years, months, weeks, days).
    .where((eb) => eb('started_at', '<', eb(eb.fn<Date>('now'), '-', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.val(days)]))))
    .execute();
}

/**
 * For each job named: the end of its last successful run, the start of its first recorded run, and the
 * database's clock (one row per name, runs or not). The times come as PostgreSQL sends them (text).
 */
export function jobRunTimes(em: EntityManager, names: readonly string[]) {
  return db(em)
    .selectFrom((eb) => eb.fn<{ value: string }>('jsonb_array_elements_text', [jsonb(names)]).as('q'))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('job_run')
          .select('job_run.finished_at')
          .whereRef('job_run.job', '=', 'q.value')
          .where('job_run.outcome', '=', 'ok')
          .orderBy('job_run.started_at', 'desc')
          .limit(1)
          .as('ok'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) => eb.selectFrom('job_run').select('job_run.started_at').whereRef('job_run.job', '=', 'q.value').orderBy('job_run.started_at').limit(1).as('f'),
      (join) => join.onTrue(),
    )
    .select((eb) => [
      'q.value as job',
      eb.ref('ok.finished_at').$castTo<Date | null>().as('last_ok'),
      eb.ref('f.started_at').$castTo<Date | null>().as('first_run'),
      eb.fn<Date>('now').as('now'),
    ])
    .execute();
}

/** The last `runs` runs of every job that has any, by job, newest first. */
export function lastJobRuns(em: EntityManager, runs: number) {
  return db(em)
    .selectFrom((eb) => eb.selectFrom('job_run').select('job_run.job').distinct().as('j'))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('job_run')
        .select(['job_run.id', 'job_run.job', 'job_run.instance', 'job_run.attempt', 'job_run.started_at', 'job_run.finished_at', 'job_run.outcome', 'job_run.summary', 'job_run.error'])
        .whereRef('job_run.job', '=', 'j.job')
        .orderBy('job_run.started_at', 'desc')
        .orderBy('job_run.id', 'desc')
        .limit(runs)
        .as('r'),
    )
    .select(['r.job', 'r.instance', 'r.attempt', 'r.started_at', 'r.finished_at', 'r.outcome', 'r.summary', 'r.error'])
    .orderBy('r.job')
    .orderBy('r.started_at', 'desc')
    .orderBy('r.id', 'desc')
    .execute();
}
