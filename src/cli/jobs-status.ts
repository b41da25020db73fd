// `jobs:status [--runs N]` -> {"queue","stalled":[...],"jobs":[...]}: for each background job, whether it
// keeps up (its last success, stuck runs, stalled when the last success is older than three intervals:
// jobs/health.ts, the same figures as /metrics), its last runs from job_run (every instance, both modes),
// and in services mode pg-boss's view of its queue: jobs by state and the last failed one with its error.
// For an operator asking "did the sweeps run, what failed, what has stopped".
import type { EntityManager } from '@mikro-orm/postgresql';
import { lastJobRuns } from '../core/job-runs/repository.ts';
import { jobHealth, stuckInPgBoss } from '../jobs/health.ts';
import { jobsFor } from '../jobs/index.ts';
import { PG_BOSS_SCHEMA } from '../jobs/pg-boss.ts';
import { hasPgBossJobs, jobCountsByState, lastFailedJobs } from '../jobs/repository.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

/** pg-boss's tables, when pg-boss has ever run on this database (services mode). */
async function queueState(em: EntityManager) {
  if (!(await hasPgBossJobs(em, PG_BOSS_SCHEMA))) return null;
  return { counts: await jobCountsByState(em, PG_BOSS_SCHEMA), failed: await lastFailedJobs(em, PG_BOSS_SCHEMA) };
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export const jobsStatusCommand: Command = {
  usage: 'jobs:status [--runs N]',
  summary: 'Whether each background job keeps up: last success, stalled jobs, last runs and failures',
  options: [['--runs N', 'last runs shown per job, 1 to 100 (default 5)']],
  example: 'jobs:status --runs 10',
  async run(db, { config, argv }) {
    const { values, positionals } = parseOptions(argv, { runs: { type: 'string' } });
    noPositionals(positionals);
    const runs = values.runs === undefined ? 5 : Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new UsageError(`--runs must be an integer from 1 to 100, not ${JSON.stringify(values.runs)}`);
    const em = db.orm.em.fork();
    const rows = await lastJobRuns(em, runs);
    const queue = await queueState(em);
    const configured = jobsFor(config);
    // Stuck runs are visible from here only in pg-boss's table; an in-process runner keeps them in memory.
    const health = await jobHealth(em, configured, queue ? await stuckInPgBoss(em, PG_BOSS_SCHEMA, configured) : null, null);
    const names = [...new Set([...configured.map((j) => j.name), ...rows.map((r) => r.job)])];
    return {
      queue: config.jobQueue,
      stalled: health.filter((h) => h.stalled).map((h) => h.job),
      jobs: names.map((name) => {
        const mine = rows.filter((r) => r.job === name);
        const lastFailure = mine.find((r) => r.outcome === 'failed');
        const failedJob = queue?.failed.find((f) => f.name === name);
        const h = health.find((x) => x.job === name);
        return {
          name,
          enabled: h !== undefined,
          intervalSeconds: h?.intervalSeconds ?? null,
          lastSuccessAt: iso(h?.lastSuccessAt ?? null),
          lastSuccessAgeSeconds: h?.lastSuccessAgeSeconds === undefined || h.lastSuccessAgeSeconds === null ? null : Math.round(h.lastSuccessAgeSeconds),
          stalled: h?.stalled ?? false,
          stuckRuns: h?.stuck ?? null,
          lastRuns: mine.map((r) => ({
            instance: r.instance,
            attempt: r.attempt,
            startedAt: iso(r.started_at),
            finishedAt: iso(r.finished_at),
            outcome: r.outcome,
            summary: r.summary,
            error: r.error,
          })),
          lastError: lastFailure ? { at: iso(lastFailure.finished_at), attempt: lastFailure.attempt, message: lastFailure.error } : null,
          // pg-boss: its jobs of this queue by state, and the last that failed for good (retries spent).
          queue: queue
            ? {
                states: Object.fromEntries(queue.counts.filter((c) => c.name === name).map((c) => [c.state, c.n])),
                lastFailed: failedJob
                  ? { id: failedJob.id, retries: failedJob.retry_count, createdAt: iso(failedJob.created_on), failedAt: iso(failedJob.completed_on), output: failedJob.output }
                  : null,
              }
            : null,
        };
      }),
    };
  },
};
