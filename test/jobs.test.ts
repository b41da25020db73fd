// Background jobs behind one interface (src/jobs): the in-process runner (embedded mode) and, through
// the whole app, the runner the mode picks (JOB_QUEUE=auto). Every run lands in job_run and the metrics,
// and `jobs:status` shows the last runs and the last error. pg-boss specifics: jobs-pgboss.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { query } from '../src/core/db/sql.ts';
import { createLogger } from '../src/core/log.ts';
import { jobRuns } from '../src/core/metrics/registry.ts';
import { startInProcess } from '../src/jobs/in-process.ts';
import type { Job } from '../src/jobs/job.ts';
import { expireSeconds, recoverySeconds } from '../src/jobs/timing.ts';
import { jobsFor } from '../src/jobs/index.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { servicesMode } from './helpers/db.ts';

const METRICS_TOKEN = 'jobs-test-metrics-token-0123456789';
let app: TestApp;
beforeAll(async () => {
  // The trophy job ticks fast here, so the app's own runner shows its runs within the test; not faster,
  // for a run on a loaded machine (one embedded connection shared with the test's reads) can take a few
  // hundred milliseconds, and a run past its interval counts as stuck.
  app = await startTestApp({ TROPHY_INTERVAL_MS: '1000', METRICS_TOKEN });
});
afterAll(() => app?.stop());

const silent = createLogger('silent');
type Run = { job: string; instance: string; outcome: string; attempt: number; error: string | null; summary: unknown };
const runsOf = (job: string) =>
  query<Run>(app.db.orm.em.fork(), { text: `select job, instance, outcome, attempt, error, summary from job_run where job = $1 order by id`, params: [job] });
const metric = async (job: string, outcome: string) => (await jobRuns.get()).values.find((v) => v.labels.job === job && v.labels.outcome === outcome)?.value ?? 0;

describe('JOB_QUEUE', () => {
  it('auto means pg-boss with DATABASE_URL and in-process without; pg-boss needs DATABASE_URL', () => {
    expect(loadConfig({}).jobQueue).toBe('in-process');
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db' }).jobQueue).toBe('pg-boss');
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db', JOB_QUEUE: 'in-process' }).jobQueue).toBe('in-process');
    expect(() => loadConfig({ JOB_QUEUE: 'pg-boss' })).toThrow('invalid configuration: JOB_QUEUE pg-boss needs DATABASE_URL (embedded mode runs jobs in-process)');
    expect(() => loadConfig({ JOB_QUEUE: 'redis' })).toThrow('invalid configuration: JOB_QUEUE must be auto, in-process or pg-boss (got "redis")');
  });
});

describe('the app runs its jobs with the runner of its mode', () => {
  it('runs the trophy job on its timer and records each run', async () => {
    await expect.poll(async () => (await runsOf('trophies')).length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(2);
    const [first] = await runsOf('trophies');
    expect(first).toEqual({ job: 'trophies', instance: expect.any(String), outcome: 'ok', attempt: 0, error: null, summary: { changes: 0, users: 0, awarded: 0 } });
    // Through pg-boss in services mode: the run names its queue job and slot; in-process, neither.
    const [origin] = await query<{ queued: boolean; ticked: boolean }>(app.db.orm.em.fork(), {
      text: `select queue_job_id is not null as queued, tick is not null as ticked from job_run where job = 'trophies' order by id limit 1`,
      params: [],
    });
    expect(origin).toEqual({ queued: servicesMode, ticked: servicesMode });
  });
});

describe('how long a stuck run can hold its job', () => {
  it('at most two intervals for every job of the service (expiry, supervise pass and polling together)', () => {
    const jobs = jobsFor(loadConfig({}));
    const intervals = jobs.map((j) => j.intervalMs);
    for (const job of jobs) expect(recoverySeconds(job.intervalMs, intervals), job.name).toBeLessThanOrEqual((2 * job.intervalMs) / 1000);
    // And a run may take longer than one interval before it is given up on.
    for (const job of jobs) expect(expireSeconds(job.intervalMs) * 1000, job.name).toBeGreaterThan(job.intervalMs);
    // The interval of the services-mode stall test (jobs-stall.test.ts) too.
    expect(recoverySeconds(2000, [2000])).toBeLessThanOrEqual(4);
  });
});

describe('the app reports each job in /metrics', () => {
  it('job_last_success_age_seconds and job_runs_stuck for every job switched on', async () => {
    await expect.poll(async () => (await runsOf('trophies')).length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(1);
    const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE job_last_success_age_seconds gauge\n');
    expect(text).toContain('# TYPE job_runs_stuck gauge\n');
    // The trophy job has just succeeded (it runs every second); nothing of it is stuck.
    const age = Number(/^job_last_success_age_seconds\{job="trophies"\} (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(60);
    expect(text).toMatch(/^job_runs_stuck\{job="trophies"\} 0$/m);
    // Every job of the service has both series (a job that has not run yet: its age since the runner started).
    for (const job of jobsFor(loadConfig({}))) {
      expect(text).toMatch(new RegExp(`^job_last_success_age_seconds\\{job="${job.name}"\\} \\d`, 'm'));
      expect(text).toMatch(new RegExp(`^job_runs_stuck\\{job="${job.name}"\\} 0$`, 'm'));
    }
  });
});

describe('in-process runner', () => {
  it('a run that hangs past its expiry does not stop later ticks; it counts as stuck until it returns', async () => {
    let release!: () => void;
    const hang = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const hung: Job = {
      name: 'test-hung',
      intervalMs: 400,
      run: async () => {
        if (++calls === 1) await hang;
        return { calls };
      },
    };
    const running = startInProcess([hung], app.db.orm, silent);
    try {
      // The first run hangs; after its expiry (1 s) the next tick starts a new run, and later ones follow.
      await expect.poll(async () => (await runsOf('test-hung')).length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(2);
      expect(calls).toBeGreaterThanOrEqual(3);
      const [health] = await running.health();
      expect(health).toEqual({
        job: 'test-hung',
        intervalSeconds: 0.4,
        lastSuccessAt: expect.any(Date),
        lastSuccessAgeSeconds: expect.any(Number),
        stuck: 1,
        stalled: false,
      });
    } finally {
      release();
      await running.stop();
    }
    // The hung run is recorded once it returns; then nothing is stuck.
    expect((await runsOf('test-hung')).every((r) => r.outcome === 'ok')).toBe(true);
    expect((await running.health())[0]!.stuck).toBe(0);
  });

  it('runs each tick, records failures (metrics, job_run) and keeps ticking after one', async () => {
    let calls = 0;
    const flaky: Job = {
      name: 'test-flaky',
      intervalMs: 30,
      run: async () => {
        calls++;
        if (calls === 1) throw new Error('first run fails');
        return { calls };
      },
    };
    const failedBefore = await metric('test-flaky', 'failed');
    const running = startInProcess([flaky], app.db.orm, silent);
    try {
      await expect.poll(async () => (await runsOf('test-flaky')).length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(3);
    } finally {
      await running.stop();
    }
    const runs = await runsOf('test-flaky');
    expect(runs[0]).toMatchObject({ outcome: 'failed', error: 'first run fails', summary: null });
    expect(runs[1]).toMatchObject({ outcome: 'ok', error: null, summary: { calls: 2 } });
    expect((await metric('test-flaky', 'failed')) - failedBefore).toBe(1);
    expect(await metric('test-flaky', 'ok')).toBeGreaterThanOrEqual(2);
  });

  it('stop() stops ticking and waits for the run in progress', async () => {
    let finished = 0;
    let started = 0;
    const slow: Job = {
      name: 'test-slow',
      intervalMs: 20,
      run: async () => {
        started++;
        await new Promise((r) => setTimeout(r, 300));
        finished++;
        return {};
      },
    };
    const running = startInProcess([slow], app.db.orm, silent);
    await expect.poll(() => started, { timeout: 30_000, interval: 10 }).toBe(1);
    await running.stop();
    // One run, started once (a tick during a run is skipped) and finished before stop() returned.
    expect({ started, finished }).toEqual({ started: 1, finished: 1 });
    await new Promise((r) => setTimeout(r, 100));
    expect(started).toBe(1);
  });

  it('a job with interval 0 never runs', async () => {
    let calls = 0;
    const off: Job = { name: 'test-off', intervalMs: 0, run: async () => ({ calls: ++calls }) };
    const running = startInProcess([off], app.db.orm, silent);
    await new Promise((r) => setTimeout(r, 100));
    await running.stop();
    expect(calls).toBe(0);
  });
});

describe('jobs:status', () => {
  it('prints every job with its last runs and last error', async () => {
    const res = await runAdmin(app, 'jobs:status', '--runs', '2');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { queue: string; jobs: Array<Record<string, unknown>> };
    expect(out.queue).toBe(servicesMode ? 'pg-boss' : 'in-process');
    expect(out.jobs.map((j) => j.name)).toEqual(['oauth-sweep', 'sync-sweep', 'playback-sweep', 'list-sync', 'new-episodes', 'trending', 'recommendations', 'stats-rollup', 'trophies', 'imports', 'catalog-refresh', 'webhooks', 'test-flaky', 'test-hung', 'test-off', 'test-slow'].filter((n) => n !== 'test-off'));
    const trophies = out.jobs.find((j) => j.name === 'trophies')!;
    expect(Object.keys(trophies)).toEqual(['name', 'enabled', 'intervalSeconds', 'lastSuccessAt', 'lastSuccessAgeSeconds', 'stalled', 'stuckRuns', 'lastRuns', 'lastError', 'queue']);
    expect(trophies).toMatchObject({
      intervalSeconds: 60,
      lastSuccessAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastSuccessAgeSeconds: expect.any(Number),
      stalled: false,
      // pg-boss's table shows stuck runs to any process; an in-process runner's are in its own memory.
      stuckRuns: servicesMode ? 0 : null,
    });
    // The CLI's own configuration (no TROPHY_INTERVAL_MS) has the trophy job on.
    expect(trophies.enabled).toBe(true);
    expect((trophies.lastRuns as unknown[]).length).toBe(2);
    expect((trophies.lastRuns as Array<Record<string, unknown>>)[0]).toEqual({
      instance: expect.any(String),
      attempt: 0,
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      outcome: 'ok',
      summary: { changes: 0, users: 0, awarded: 0 },
      error: null,
    });
    expect(trophies.lastError).toBeNull();
    if (servicesMode) expect((trophies.queue as { states: Record<string, number> }).states.completed).toBeGreaterThanOrEqual(1);
    else expect(trophies.queue).toBeNull();
    // Only two runs asked for: test-flaky's failed first run is older than them.
    const flaky = out.jobs.find((j) => j.name === 'test-flaky')!;
    expect(flaky.lastError).toBeNull();
    const all = JSON.parse((await runAdmin(app, 'jobs:status', '--runs', '100')).stdout) as typeof out;
    expect(all.jobs.find((j) => j.name === 'test-flaky')!.lastError).toEqual({ at: expect.any(String), attempt: 0, message: 'first run fails' });
  });

  it('names a stalled job: its last success is older than three intervals', async () => {
    // new-episodes runs every 15 minutes: no run of it happens during this file. One that succeeded
    // 50 minutes ago (more than 3 x 15) is stalled.
    await query(app.db.orm.em.fork(), {
      text: `insert into job_run (job, instance, started_at, finished_at, outcome) values ('new-episodes', 'elsewhere:1:0', now() - interval '50 minutes', now() - interval '50 minutes', 'ok')`,
      params: [],
    });
    const res = await runAdmin(app, 'jobs:status', '--runs', '1');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { stalled: string[]; jobs: Array<Record<string, unknown>> };
    expect(out.stalled).toContain('new-episodes');
    expect(out.stalled).not.toContain('trophies');
    const episodes = out.jobs.find((j) => j.name === 'new-episodes')!;
    expect(episodes).toMatchObject({ stalled: true, intervalSeconds: 900 });
    expect(episodes.lastSuccessAgeSeconds as number).toBeGreaterThanOrEqual(2999);
  });

  it('rejects a bad --runs', async () => {
    const res = await runAdmin(app, 'jobs:status', '--runs', '0');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--runs must be an integer from 1 to 100, not "0"');
  });
});
