// The service's Prometheus metrics (prom-client), in one registry per process; served by rest/metrics.ts.
// Process-wide on purpose: a production process runs one app, and a metric recorded by a job or a core
// module needs no handle to find its registry. Tests that start several apps in one process share the
// series (counters add up, the SSE gauge counts every app's streams, the pool gauges sum every open
// pool), so tests assert differences, never absolute values.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();

// RSS, heap, CPU, open handles, event loop lag (nodejs_eventloop_lag_* ), GC: prom-client's defaults.
collectDefaultMetrics({ register: registry });

/** By the matched route template (never the raw path: ids would make the label set unbounded). */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by matched route template, method and status code, from the first byte in to the last byte out.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** The label of a request no route matched: one series for every unknown path. */
export const UNMATCHED_ROUTE = 'unmatched';

export const rateLimitRejections = new Counter({
  name: 'rate_limit_rejections_total',
  help: 'Requests answered 429 by the rate limiter, by bucket id (the ids of the limits table).',
  labelNames: ['bucket'] as const,
  registers: [registry],
});

export const jobRuns = new Counter({
  name: 'job_runs_total',
  help: 'Background job runs by job name and outcome (ok or failed).',
  labelNames: ['job', 'outcome'] as const,
  registers: [registry],
});

const jobRunDuration = new Histogram({
  name: 'job_run_duration_seconds',
  help: 'Background job run time by job name and outcome.',
  labelNames: ['job', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [registry],
});

/** One finished run of a background job. */
export function recordJobRun(job: string, outcome: 'ok' | 'failed', seconds: number): void {
  jobRuns.inc({ job, outcome });
  jobRunDuration.observe({ job, outcome }, seconds);
}

/** What a job runner reports about each of its jobs at scrape time (src/jobs/health.ts computes it). */
export type JobHealthReading = { job: string; lastSuccessAgeSeconds: number | null; stuck: number | null };

const jobReaders = new Set<() => Promise<JobHealthReading[]>>();

/** Reports a job runner in the job gauges until the returned function is called (when it stops). */
export function watchJobs(read: () => Promise<JobHealthReading[]>): () => void {
  jobReaders.add(read);
  return () => jobReaders.delete(read);
}

// Both job gauges come from one reading per scrape (it asks the database), shared for a second.
let jobReading: { at: number; readings: Promise<JobHealthReading[]> } | undefined;
function readJobs(): Promise<JobHealthReading[]> {
  const now = Date.now();
  if (!jobReading || now - jobReading.at > 1000) {
    const reads = [...jobReaders].map((read) => read().catch(() => [] as JobHealthReading[]));
    jobReading = { at: now, readings: Promise.all(reads).then((all) => all.flat()) };
  }
  return jobReading.readings;
}

// Gauges read when scraped (their `collect`) are registered here and written nowhere else.
new Gauge({
  name: 'job_last_success_age_seconds',
  help: 'Seconds since the last successful run of each background job, across the fleet (job_run). Alert when it passes three intervals.',
  labelNames: ['job'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const r of await readJobs()) if (r.lastSuccessAgeSeconds !== null) this.set({ job: r.job }, r.lastSuccessAgeSeconds);
  },
});

new Gauge({
  name: 'job_runs_stuck',
  help: 'Runs of each background job active for longer than its interval (pg-boss: across the fleet; in-process: this process).',
  labelNames: ['job'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const r of await readJobs()) if (r.stuck !== null) this.set({ job: r.job }, r.stuck);
  },
});

export const sseConnectionsOpen = new Gauge({
  name: 'sse_connections_open',
  help: 'Live event streams open now (GET /playback/events and the /trpc subscription).',
  registers: [registry],
});

export const httpConnectionsRefused = new Counter({
  name: 'http_connections_refused_total',
  help: 'Connections closed as soon as they were accepted because the instance already held MAX_CONNECTIONS.',
  registers: [registry],
});

const connectionReaders = new Set<() => Promise<number>>();

/** Reports a server's open connections in http_connections_open until the returned function is called. */
export function watchConnections(read: () => Promise<number>): () => void {
  connectionReaders.add(read);
  return () => connectionReaders.delete(read);
}

new Gauge({
  name: 'http_connections_open',
  help: 'HTTP connections open now (event streams and idle keep-alive connections included); new ones are refused at MAX_CONNECTIONS.',
  registers: [registry],
  async collect() {
    const counts = await Promise.all([...connectionReaders].map((read) => read().catch(() => 0)));
    this.set(counts.reduce((a, b) => a + b, 0));
  },
});

const dbWriteFailures = new Counter({
  name: 'db_write_failures_total',
  help: 'Statements that failed because the database cannot write (SQLSTATE 53100 disk_full, 58030 io_error, 25006 read_only_sql_transaction), by SQLSTATE.',
  labelNames: ['sqlstate'] as const,
  registers: [registry],
});

const freeSpaceReaders = new Set<() => Promise<number | undefined>>();

/** Reports a data directory in data_dir_free_bytes until the returned function is called (when it closes). */
function watchFreeSpace(read: () => Promise<number | undefined>): () => void {
  freeSpaceReaders.add(read);
  return () => freeSpaceReaders.delete(read);
}

new Gauge({
  name: 'data_dir_free_bytes',
  help: "Embedded mode: free bytes on the data directory's filesystem (below DATA_DIR_MIN_FREE_MB the instance is not ready). Absent in services mode.",
  registers: [registry],
  async collect() {
    this.reset();
    const readings = await Promise.all([...freeSpaceReaders].map((read) => read().catch(() => undefined)));
    const known = readings.filter((r): r is number => r !== undefined);
    if (known.length) this.set(Math.min(...known));
  },
});

/** How a database pool is used right now. */
type PoolUse = { inUse: number; idle: number; waiting: number };

const pools = new Set<() => PoolUse | undefined>();

/** Reports a pool in db_pool_connections until the returned function is called (when the pool closes). */
function watchPool(read: () => PoolUse | undefined): () => void {
  pools.add(read);
  return () => pools.delete(read);
}

new Gauge({
  name: 'db_pool_connections',
  help: 'Database pool connections by state: in_use (checked out), idle (open, free), waiting (requests queued for a connection).',
  labelNames: ['state'] as const,
  registers: [registry],
  // Read at scrape time from the pools themselves: nothing to keep in step on every query.
  collect() {
    const sum: PoolUse = { inUse: 0, idle: 0, waiting: 0 };
    for (const read of pools) {
      const use = read();
      if (!use) continue;
      sum.inUse += use.inUse;
      sum.idle += use.idle;
      sum.waiting += use.waiting;
    }
    this.set({ state: 'in_use' }, sum.inUse);
    this.set({ state: 'idle' }, sum.idle);
    this.set({ state: 'waiting' }, sum.waiting);
  },
});

/** The database's pool, free space and cannot-write failures in the metrics above: openDatabase's `observer` (server.ts passes it). */
export const databaseMetrics = {
  watchPool,
  watchFreeSpace,
  cannotWrite: (sqlstate: string) => dbWriteFailures.inc({ sqlstate }),
};

const feedLagReaders = new Set<() => Promise<number>>();

/** Reports a database in change_feed_lag_seconds until the returned function is called (when it closes). */
export function watchFeedLag(read: () => Promise<number>): () => void {
  feedLagReaders.add(read);
  return () => feedLagReaders.delete(read);
}

new Gauge({
  name: 'change_feed_lag_seconds',
  help: 'How long the change feed is held back: age of the oldest open transaction with an xid on the whole PostgreSQL server (the feed serves nothing newer until it ends). Alert above 30.',
  registers: [registry],
  async collect() {
    const readings = await Promise.all([...feedLagReaders].map((read) => read().catch(() => null)));
    const known = readings.filter((r): r is number => r !== null);
    if (known.length) this.set(Math.max(...known));
  },
});
