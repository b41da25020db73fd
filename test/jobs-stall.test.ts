// A scheduled job never stalls across the fleet (services mode, real processes on one PostgreSQL): the
// pg-boss queues keep at most one run active, so a run that hangs, or one whose instance was killed
// mid-run, would hold back every later tick until pg-boss expired it (its default: 15 minutes). Each
// queue's expiry is tied to the job's interval (src/jobs/timing.ts), so the job runs again within about
// two intervals. The hang is made on demand: the test locks trophy_cursor, which the trophy job reads
// first, so the run that starts next waits on the lock while its job is active.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireSeconds } from '../src/jobs/timing.ts';
import { startTestApp } from './helpers/app.ts';
import { startChildServer, type ChildServer } from './helpers/child-server.ts';
import { servicesMode, type TestDatabase } from './helpers/db.ts';
import { until } from './helpers/wait.ts';

const INTERVAL_MS = 2000;
const METRICS_TOKEN = 'jobs-stall-metrics-token-0123456789';

/** One job's series of a gauge in a process's /metrics (null when absent). */
async function gauge(child: ChildServer, name: string, job: string): Promise<number | null> {
  const res = await fetch(`${child.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const line = new RegExp(`^${name}\\{job="${job}"\\} (\\S+)$`, 'm').exec(await res.text());
  return line ? Number(line[1]) : null;
}

describe.skipIf(!servicesMode)('a stuck run never stops a scheduled job', () => {
  let database: TestDatabase;
  let db: pg.Client;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    // Migrated in-process (its jobs never tick in that time), then left to the child processes.
    const seeder = await startTestApp();
    database = seeder.database;
    await seeder.close();
    db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await Promise.allSettled(children.map((c) => c.kill()));
    await db?.end();
    await database?.cleanup();
  });

  const start = async () => {
    const child = await startChildServer(database, { TROPHY_INTERVAL_MS: String(INTERVAL_MS), METRICS_TOKEN });
    children.push(child);
    return child;
  };
  type QueueJob = { id: string; state: string; retry_count: number; output: { message?: string; value?: { message?: string } } | null };
  const trophyJob = async (id: string) =>
    (await db.query<QueueJob>(`select id, state::text, retry_count, output from pgboss.job where id = $1`, [id])).rows[0]!;
  /**
   * Takes the lock that makes trophy runs hang (in `lock`'s open transaction) and waits for a run that
   * waits on it; returns its id. Only a run started after the lock was granted surely waits on it: one
   * already active then may have read trophy_cursor before, and completes (a loaded machine makes that
   * likely), so runs are picked by their start, read on the database's clock.
   */
  const hungRun = async (lock: pg.Client) => {
    await lock.query('begin');
    await lock.query('lock table trophy_cursor in access exclusive mode');
    const locked = (await lock.query<{ at: Date }>('select clock_timestamp() as at')).rows[0]!.at;
    let id: string | undefined;
    await until('a trophy run waiting on the lock', async () => {
      id = (
        await db.query<{ id: string }>(`select id from pgboss.job where name = 'trophies' and state = 'active' and started_on > $1 limit 1`, [locked])
      ).rows[0]?.id;
      return id !== undefined;
    });
    return id!;
  };
  /** Successful trophy runs of one process since `after`. */
  const okRuns = async (child: ChildServer, after: Date) =>
    (
      await db.query<{ n: number }>(
        `select count(*)::int as n from job_run where job = 'trophies' and outcome = 'ok' and split_part(instance, ':', 2) = $1 and started_at > $2`,
        [String(child.process.pid), after],
      )
    ).rows[0]!.n;
  const jobState = async () =>
    JSON.stringify((await db.query(`select id, state::text, retry_count, started_on, completed_on from pgboss.job where name = 'trophies' order by created_on desc limit 5`)).rows);

  it("sets each queue's expiry from its job's interval", async () => {
    const a = await start();
    await until('a first trophy run', async () => (await okRuns(a, new Date(0))) >= 1, 60_000);
    const { rows } = await db.query<{ expire_seconds: number }>(`select expire_seconds from pgboss.queue where name = 'trophies'`);
    expect(rows).toEqual([{ expire_seconds: expireSeconds(INTERVAL_MS) }]);
  });

  it('a run that hangs is failed at its expiry and retried; the job runs again once the hang ends', async () => {
    const [a] = children as [ChildServer];
    const lock = new pg.Client({ connectionString: database.databaseUrl });
    await lock.connect();
    let released = false;
    try {
      const stuck = await hungRun(lock);
      // Failed by its own worker at the expiry while it still hangs, so it no longer holds the queue.
      await until(`the hung run to be failed at its expiry: ${await jobState()}`, async () => (await trophyJob(stuck)).state !== 'active', 60_000);
      const failed = await trophyJob(stuck);
      // Retried later with the queue's backoff (the hang still holds that retry until it ends).
      expect(failed.state).toBe('retry');
      // Failed by its worker's own timer, or by a supervise pass that came first: either says it expired.
      const message = failed.output?.message ?? failed.output?.value?.message;
      expect([`handler execution exceeded ${expireSeconds(INTERVAL_MS)}s`, 'job timed out']).toContain(message);
      // The run given up on still hangs in a: /metrics counts it as stuck.
      await until('the hung run counted in job_runs_stuck', async () => (await gauge(a, 'job_runs_stuck', 'trophies')) === 1, 10_000);
      await lock.query('rollback');
      released = true;
      const after = new Date();
      await until('trophy runs after the hang', async () => (await okRuns(a, after)) >= 2, 60_000);
      await until('no stuck trophy run', async () => (await gauge(a, 'job_runs_stuck', 'trophies')) === 0, 10_000);
      expect(await gauge(a, 'job_last_success_age_seconds', 'trophies')).toBeLessThan(60);
    } finally {
      if (!released) await lock.query('rollback').catch(() => undefined);
      await lock.end();
    }
  });

  it('a run whose instance was killed mid-run holds its job only until its expiry: a new instance runs the job', async () => {
    const [a] = children as [ChildServer];
    const lock = new pg.Client({ connectionString: database.databaseUrl });
    await lock.connect();
    let orphan: string;
    try {
      orphan = await hungRun(lock);
      // kill -9 while its run is active: nothing of it will complete or fail that job.
      await a.kill();
    } finally {
      await lock.query('rollback').catch(() => undefined);
      await lock.end();
    }
    const b = await start();
    const since = new Date();
    // Another instance's supervise pass fails the orphaned run once past its expiry; then b takes the ticks.
    await until(`the orphaned run to be failed: ${await jobState()}`, async () => (await trophyJob(orphan)).state !== 'active', 60_000);
    await until('trophy runs on the new instance', async () => (await okRuns(b, since)) >= 2, 60_000);
  });
});
