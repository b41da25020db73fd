// `jobs:status [--runs N]` -> {"queue","stalled":[...],"jobs":[...]}: for each background job, whether it
// keeps up (its last success, stuck runs, stalled when the last success is older than three intervals:
// jobs/health.ts, the same figures as /metrics), its last runs from job_run (every instance, both modes),
// and in services mode pg-boss's view of its queue: jobs by state and the last failed one with its error.
// For an operator asking "did the sweeps run, what failed, what has stopped".
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../core/db/sql.ts';
import { jobHealth, stuckInPgBoss } from '../jobs/health.ts';
import { jobsFor } from '../jobs/index.ts';
import { PG_BOSS_SCHEMA } from '../jobs/pg-boss.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

type RunRow = {
  job: string;
  instance: string;
  attempt: number;
  started_at: Date;
  finished_at: Date;
  outcome: 'ok' | 'failed';
  summary: Record<string, number> | null;
  error: string | null;
};

async function lastRuns(em: EntityManager, runs: number): Promise<RunRow[]> {
  return query<RunRow>(em, {
    text: `select r.job, r.instance, r.attempt, r.started_at, r.finished_at, r.outcome, r.summary, r.error
      from (select distinct job from job_run) j
      cross join lateral (select * from job_run where job = j.job order by started_at desc, id desc limit $1) r
      order by r.job, r.started_at desc, r.id desc`,
    params: [runs],
  });
}

type QueueRow = { name: string; state: string; n: number };
type FailedRow = { name: string; id: string; retry_count: number; created_on: Date; completed_on: Date | null; output: unknown };

/** pg-boss's tables, when pg-boss has ever run on this database (services mode). */
async function queueState(em: EntityManager): Promise<{ counts: QueueRow[]; failed: FailedRow[] } | null> {
  const [present] = await query<{ ok: boolean }>(em, { text: `select to_regclass($1) is not null as ok`, params: [`${PG_BOSS_SCHEMA}.job`] });
  if (!present?.ok) return null;
  const counts = await query<QueueRow>(em, { text: `select name, state::text, count(*)::int as n from ${PG_BOSS_SCHEMA}.job group by name, state`, params: [] });
  const failed = await query<FailedRow>(em, {
    text: `select distinct on (name) name, id, retry_count, created_on, completed_on, output
      from ${PG_BOSS_SCHEMA}.job where state = 'failed' order by name, completed_on desc nulls last`,
    params: [],
  });
  return { counts, failed };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export const jobsStatusCommand: Command = {
  usage: 'jobs:status [--runs N]',
  async run(db, { config, argv }) {
    const { values, positionals } = parseOptions(argv, { runs: { type: 'string' } });
    noPositionals(positionals);
    const runs = values.runs === undefined ? 5 : Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new UsageError(`--runs must be an integer from 1 to 100, not ${JSON.stringify(values.runs)}`);
    const em = db.orm.em.fork();
    const rows = await lastRuns(em, runs);
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
