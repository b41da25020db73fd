// Whether each job keeps up: the age of its last successful run and how many of its runs are stuck
// (going for longer than one interval). The last success comes from job_run, so it covers the whole
// fleet and survives restarts. Stuck runs: in services mode pg-boss's active runs older than their
// interval (the fleet's, orphaned runs of dead instances included) plus this instance's runs that
// pg-boss already gave up on at their expiry but that have not returned; in-process, the runner's own. /metrics (job_last_success_age_seconds, job_runs_stuck) and `jobs:status` read
// the same figures, and a job whose last success is older than STALLED_AFTER_INTERVALS intervals is
// stalled: the alert docs/operations.md describes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { jobRunTimes } from '../core/job-runs/repository.ts';
import type { Job } from './job.ts';
import { activeLongerThan } from './repository.ts';
import { STALLED_AFTER_INTERVALS } from './timing.ts';

export type JobHealth = {
  job: string;
  intervalSeconds: number;
  lastSuccessAt: Date | null;
  /** Seconds since the last successful run; with none yet, since the job's first recorded run or `since`. */
  lastSuccessAgeSeconds: number | null;
  /** Runs active for longer than one interval (null where this process cannot see them). */
  stuck: number | null;
  stalled: boolean;
};

/** pg-boss runs active for longer than their job's interval, by job. */
export async function stuckInPgBoss(em: EntityManager, schema: string, jobs: Job[]): Promise<Map<string, number>> {
  const rows = jobs.length ? await activeLongerThan(em, schema, jobs.map((j) => ({ name: j.name, seconds: j.intervalMs / 1000 }))) : [];
  const counts = new Map(rows.map((r) => [r.name, r.n]));
  return new Map(jobs.map((j) => [j.name, counts.get(j.name) ?? 0]));
}

/**
 * The health of `jobs` (those switched on). `stuck`: by job name, or null where unknown. `since`: when
 * this runner started, the reference for a job that has recorded no run at all (null: none).
 */
export async function jobHealth(em: EntityManager, jobs: Job[], stuck: Map<string, number> | null, since: Date | null): Promise<JobHealth[]> {
  const active = jobs.filter((j) => j.intervalMs > 0);
  if (!active.length) return [];
  // For each job: its last successful run and its first recorded run (job_run keeps 7 days).
  const times = new Map((await jobRunTimes(em, active.map((j) => j.name))).map((r) => [r.job, r]));
  return active.map((job) => {
    const t = times.get(job.name);
    const now = t ? t.now.getTime() : Date.now();
    const reference = t?.last_ok ?? t?.first_run ?? since;
    const age = reference === null ? null : Math.max(0, (now - reference.getTime()) / 1000);
    const intervalSeconds = job.intervalMs / 1000;
    return {
      job: job.name,
      intervalSeconds,
      lastSuccessAt: t?.last_ok ?? null,
      lastSuccessAgeSeconds: age,
      stuck: stuck ? (stuck.get(job.name) ?? 0) : null,
      stalled: age !== null && age > STALLED_AFTER_INTERVALS * intervalSeconds,
    };
  });
}

/** This process's runs in progress, for the stuck count. */
export class RunsInFlight {
  readonly #runs = new Set<{ job: string; startedAt: number }>();

  /** Runs `run`, tracked until it settles. */
  async track<T>(job: string, run: () => Promise<T>): Promise<T> {
    const entry = { job, startedAt: Date.now() };
    this.#runs.add(entry);
    try {
      return await run();
    } finally {
      this.#runs.delete(entry);
    }
  }

  /** By job: its runs going for longer than `limitMs(job)`. */
  over(limitMs: (job: string) => number): Map<string, number> {
    const now = Date.now();
    const counts = new Map<string, number>();
    for (const r of this.#runs) if (now - r.startedAt > limitMs(r.job)) counts.set(r.job, (counts.get(r.job) ?? 0) + 1);
    return counts;
  }
}
