// Jobs on pg-boss (services mode): two instances on one database run each tick of a job once, a job
// that throws is retried with growing delays and its failure stays visible (job_run, pg-boss, metrics,
// `jobs:status`), and stopping an app stops its pg-boss (no connection of it left).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { createLogger } from '../src/core/log.ts';
import { jobRuns } from '../src/core/metrics/registry.ts';
import { startJobs } from '../src/jobs/index.ts';
import type { Job } from '../src/jobs/job.ts';
import { RETRY_LIMIT } from '../src/jobs/pg-boss.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { servicesMode } from './helpers/db.ts';

describe.skipIf(!servicesMode)('jobs on pg-boss', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // The trophy job ticks every second on both instances (pg-boss slots are whole seconds).
    a = await startTestApp({ TROPHY_INTERVAL_MS: '1000' });
    b = await startTestApp({ TROPHY_INTERVAL_MS: '1000' }, { sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  const em = () => a.db.orm.em.fork();

  it('runs each tick of a scheduled job once across two instances', async () => {
    const ticks = async () =>
      (await query<{ n: number }>(em(), { text: `select count(distinct tick)::int as n from job_run where job = 'trophies'`, params: [] }))[0]!.n;
    await expect.poll(ticks, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(4);
    const doubled = await query(em(), {
      text: `select tick, count(*)::int as runs from job_run where job = 'trophies' and attempt = 0 group by tick having count(*) > 1`,
      params: [],
    });
    expect(doubled).toEqual([]);
    const [totals] = await query<{ runs: number; ticks: number; failed: number }>(em(), {
      text: `select count(*)::int as runs, count(distinct tick)::int as ticks, count(*) filter (where outcome <> 'ok')::int as failed from job_run where job = 'trophies'`,
      params: [],
    });
    expect(totals!.runs).toBe(totals!.ticks);
    expect(totals!.failed).toBe(0);
    // pg-boss's own record agrees: one job per slot.
    const slots = await query(em(), { text: `select singleton_on from pgboss.job where name = 'trophies' group by singleton_on having count(*) > 1`, params: [] });
    expect(slots).toEqual([]);
  });

  it('retries a failing job with growing delays; the failure shows in job_run, the metrics and jobs:status', async () => {
    const failing: Job = {
      name: 'test-failing',
      intervalMs: 1000,
      run: async () => {
        throw new Error('the source is down');
      },
    };
    const failedBefore = (await jobRuns.get()).values.find((v) => v.labels.job === 'test-failing' && v.labels.outcome === 'failed')?.value ?? 0;
    const running = await startJobs(a.db.orm, createLogger('silent'), { jobQueue: 'pg-boss', databaseUrl: a.database.databaseUrl, trophyIntervalMs: 0, importIntervalMs: 0 }, [failing]);
    type Attempt = { queue_job_id: string; attempt: number; started: number; outcome: string; error: string };
    const attemptsOfFirst = async () => {
      const rows = await query<Attempt>(em(), {
        text: `select queue_job_id, attempt, extract(epoch from started_at)::float8 as started, outcome, error from job_run
          where job = 'test-failing' and queue_job_id = (select queue_job_id from job_run where job = 'test-failing' order by id limit 1)
          order by attempt`,
        params: [],
      });
      return rows;
    };
    try {
      await expect.poll(async () => (await attemptsOfFirst()).length, { timeout: 45_000, interval: 250 }).toBe(RETRY_LIMIT + 1);
      // pg-boss marks it failed once the last retry failed.
      const id = (await attemptsOfFirst())[0]!.queue_job_id;
      await expect
        .poll(async () => (await query<{ state: string }>(em(), { text: `select state::text from pgboss.job where id = $1`, params: [id] }))[0]?.state, { timeout: 30_000 })
        .toBe('failed');
    } finally {
      await running.stop();
    }
    const attempts = await attemptsOfFirst();
    expect(attempts.map((r) => [r.attempt, r.outcome, r.error])).toEqual([0, 1, 2, 3].map((n) => [n, 'failed', 'the source is down']));
    // Backoff: retry delays start at 1 s and double (with jitter): the third retry waits at least 4 s,
    // longer than the first (1 to 2 s).
    const gaps = attempts.slice(1).map((r, i) => r.started - attempts[i]!.started);
    expect(gaps[2]!).toBeGreaterThanOrEqual(3.9);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
    const failedAfter = (await jobRuns.get()).values.find((v) => v.labels.job === 'test-failing' && v.labels.outcome === 'failed')?.value ?? 0;
    expect(failedAfter - failedBefore).toBeGreaterThanOrEqual(RETRY_LIMIT + 1);

    const res = await runAdmin(a, 'jobs:status');
    expect(res.code).toBe(0);
    const status = JSON.parse(res.stdout) as { queue: string; jobs: Array<{ name: string; lastError: unknown; queue: { states: Record<string, number>; lastFailed: Record<string, unknown> | null } }> };
    expect(status.queue).toBe('pg-boss');
    const job = status.jobs.find((j) => j.name === 'test-failing')!;
    expect(job.lastError).toEqual({ at: expect.any(String), attempt: expect.any(Number), message: 'the source is down' });
    expect(job.queue.states.failed).toBeGreaterThanOrEqual(1);
    expect(job.queue.lastFailed).toEqual({
      id: expect.any(String),
      retries: RETRY_LIMIT,
      createdAt: expect.any(String),
      failedAt: expect.any(String),
      output: expect.objectContaining({ message: 'the source is down' }),
    });
  });

  it('closing an app stops its pg-boss: none of its connections stays open', async () => {
    const c = await startTestApp();
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const dbName = new URL(c.database.databaseUrl!).pathname.slice(1);
      const connections = async () =>
        (await admin.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'mts-jobs'`, [dbName])).rows[0]!.n;
      expect(await connections()).toBeGreaterThanOrEqual(1);
      await c.close();
      expect(await connections()).toBe(0);
    } finally {
      await admin.end();
      await c.database.cleanup();
    }
  });
});
