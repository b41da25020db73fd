// The structured results of the benchmarks and their rendering as docs/performance.md. Each benchmark
// file turns its own figures into a Section (what was measured, its baseline, the issue's target and
// whether it is met); run.ts collects them with the machine's description, so every figure in the
// document is one measured in that run, but for its last section (measured-once.ts), which says so.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import type { Figures } from './lib.ts';
import { MEASURED_ONCE } from './measured-once.ts';

/** One load measurement: throughput and latency, with the baseline it is compared with if any. */
export type Measure = {
  label: string;
  figures: Figures;
  /** What `requestsPerSecond` counts (default: requests). */
  unit?: string;
  baseline?: { label: string; figures: Figures };
};

/** A figure that is not a load run (a start-up time, an in-process timing). */
export type Value = { label: string; value: string };

export type Target = { issue: number; target: string; measured: string; met: boolean; /** By how much it is missed. */ miss?: string };

/** A table of the benchmark's own (first column left-aligned, the others right-aligned), with a line above it. */
export type Table = { caption: string; header: string[]; rows: string[][] };

/** The same endpoint at two data sizes (10x apart). */
export type Growth = { endpoint: string; unit: string; small: { size: number; figures: Figures }; large: { size: number; figures: Figures } };

export type Section = {
  title: string;
  /** The setup in one or two sentences: mode, data, concurrency. */
  setup: string;
  measures: Measure[];
  values: Value[];
  targets: Target[];
  growth: Growth[];
  tables: Table[];
  /** Filled by run.ts: the highest RSS and heap used of the service processes during this benchmark, and its wall time. */
  peakRssMiB?: number | null;
  peakHeapUsedMiB?: number | null;
  seconds?: number;
};

export function section(title: string, setup: string, parts: Partial<Pick<Section, 'measures' | 'values' | 'targets' | 'growth' | 'tables'>>): Section {
  return { title, setup, measures: parts.measures ?? [], values: parts.values ?? [], targets: parts.targets ?? [], growth: parts.growth ?? [], tables: parts.tables ?? [] };
}

const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

/** A latency or duration target: met when `measured` is at most `limit`. */
export function atMost(issue: number, target: string, measured: number, limit: number, unit = 'ms'): Target {
  const fmt = (v: number) => (unit === 'ms' ? ms(v) : `${v.toFixed(v < 10 ? 2 : 1)} ${unit}`);
  const met = measured <= limit;
  return { issue, target, measured: fmt(measured), met, ...(met ? {} : { miss: `${fmt(measured - limit)} over (${(measured / limit).toFixed(2)}x the limit)` }) };
}

/** A throughput or ratio target: met when `measured` is at least `floor`. */
export function atLeast(issue: number, target: string, measured: number, floor: number, unit = ''): Target {
  const fmt = (v: number) => (unit ? `${Math.round(v).toLocaleString('en')} ${unit}` : v.toFixed(2));
  const met = measured >= floor;
  return { issue, target, measured: fmt(measured), met, ...(met ? {} : { miss: `${((1 - measured / floor) * 100).toFixed(measured / floor > 0.9 ? 1 : 0)}% short (${(measured / floor).toFixed(2)}x the floor)` }) };
}

export type Machine = {
  date: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  postgres: string;
  redis: string;
  loadStart: number[];
  loadEnd?: number[];
};

async function postgresVersion(databaseUrl: string): Promise<string> {
  const c = new pg.Client({ connectionString: databaseUrl });
  try {
    await c.connect();
    return (await c.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
  } catch (err) {
    return `unknown (${(err as Error).message})`;
  } finally {
    await c.end().catch(() => undefined);
  }
}

function redisVersion(redisUrl: string): string {
  try {
    const u = new URL(redisUrl);
    return execFileSync('redis-cli', ['-h', u.hostname, '-p', u.port || '6379', 'info', 'server'], { encoding: 'utf8', timeout: 3000 }).match(/redis_version:(\S+)/)?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export async function describeMachine(databaseUrl: string, redisUrl: string): Promise<Machine> {
  return {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: os.totalmem() / 2 ** 30,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await postgresVersion(databaseUrl),
    redis: redisVersion(redisUrl),
    loadStart: os.loadavg(),
  };
}

const n0 = (v: number) => Math.round(v).toLocaleString('en');
const cell = (v: number) => (Number.isFinite(v) ? ms(v) : 'n/a');

function measuresTable(measures: Measure[]): string[] {
  const lines = [
    '| Measurement | Throughput | p50 | p99 | Samples | Baseline | Baseline throughput | Baseline p99 | Ratio |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const m of measures) {
    const unit = m.unit ?? 'req/s';
    const b = m.baseline;
    lines.push(
      `| ${m.label} | ${n0(m.figures.requestsPerSecond)} ${unit} | ${cell(m.figures.p50)} | ${cell(m.figures.p99)} | ${n0(m.figures.requests)} | ` +
        (b ? `${b.label} | ${n0(b.figures.requestsPerSecond)} ${unit} | ${cell(b.figures.p99)} | ${(m.figures.requestsPerSecond / b.figures.requestsPerSecond).toFixed(2)} |` : '| | | |'),
    );
  }
  return lines;
}

function growthTable(growth: Growth[]): string[] {
  const lines = [
    '| Endpoint | Size | Throughput | p50 | p99 | 10x size | Throughput | p50 | p99 | p99 growth | Throughput kept |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const g of growth) {
    const s = g.small.figures;
    const l = g.large.figures;
    lines.push(
      `| ${g.endpoint} | ${n0(g.small.size)} | ${n0(s.requestsPerSecond)} ${g.unit} | ${cell(s.p50)} | ${cell(s.p99)} | ${n0(g.large.size)} | ${n0(l.requestsPerSecond)} ${g.unit} | ${cell(l.p50)} | ${cell(l.p99)} | ` +
        `${(l.p99 / s.p99).toFixed(2)}x | ${(l.requestsPerSecond / s.requestsPerSecond).toFixed(2)}x |`,
    );
  }
  return lines;
}

function targetsTable(sections: Section[]): string[] {
  const lines = ['| Issue | Benchmark | Target | Measured | Met | Missed by |', '|---:|---|---|---:|---|---|'];
  for (const s of sections) for (const t of s.targets) lines.push(`| #${t.issue} | ${s.title} | ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} | ${t.miss ?? ''} |`);
  return lines;
}

export type Run = { machine: Machine; sections: Section[]; failures: Array<{ title: string; error: string }>; totalSeconds: number; benchSeconds: number; env: Record<string, string> };

/** docs/performance.md: the run's figures, targets and machine, then the figures measured once (measured-once.ts). */
export function renderMarkdown(run: Run): string {
  const m = run.machine;
  const load = (l: number[] | undefined) => (l ? l.map((v) => v.toFixed(2)).join(', ') : 'n/a');
  const out: string[] = [
    '# Performance report',
    '',
    '<!-- Generated by `npm run bench` (bench/run.ts); do not edit by hand: every figure is the one measured in the run below, but for the last section\'s (bench/measured-once.ts). -->',
    '',
    `Generated ${m.date} by \`npm run bench\` in ${Math.floor(run.totalSeconds / 60)} min ${Math.floor(run.totalSeconds % 60)} s ` +
      `(each load run: a 2 s warm-up, then ${run.benchSeconds} s; \`BENCH_SECONDS=${run.benchSeconds}\`${Object.entries(run.env).map(([k, v]) => `, \`${k}=${v}\``).join('')}).`,
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpu}, ${m.cores} cores; memory ${m.memoryGiB.toFixed(1)} GiB; ${m.kernel}`,
    `- Node ${m.node}; PostgreSQL ${m.postgres}; Redis ${m.redis}`,
    `- Load average (1, 5, 15 min) at start: ${load(m.loadStart)}; at end: ${load(m.loadEnd)}`,
    '- The service, PostgreSQL, Redis and the load generator share these cores: throughput is bounded by their sum, and',
    '  figures move when anything else runs on the machine (compare the load averages).',
    '',
    'How to read the tables: throughput and latency are through the whole service (HTTP, pipeline, bearer',
    'verification, validation, the SQL) at the stated concurrency unless the row says otherwise; the baseline',
    'is the same SQL through a bare `pg` pool at the same concurrency, in the same run; the ratio is service',
    'throughput over baseline throughput. p50 and p99 are per request (per batch for bulk sync). Peak RSS is the',
    'highest resident set size of the service processes (`/proc/<pid>/status`: VmRSS sampled every 250 ms and the',
    'kernel\'s own peak, VmHWM, read before each is stopped) during the benchmark; for start-up it includes the',
    'demo catalog import of the first start.',
    '',
    '## Targets of the earlier issues',
    '',
    ...targetsTable(run.sections),
    '',
  ];
  const growth = run.sections.flatMap((s) => s.growth);
  if (growth.length) {
    out.push(
      '## Cost growth with 10x more data',
      '',
      'The paged and feed endpoints at two data sizes, 10x apart (keyset paging: the cost of a page should not',
      'depend on how much data lies before or after it). "p99 growth" is p99 at the larger size over p99 at the',
      'smaller; "throughput kept" is throughput at the larger size over throughput at the smaller.',
      '',
      ...growthTable(growth),
      '',
    );
  }
  out.push(
    '## Peak memory of the service under load',
    '',
    '| Benchmark | Peak RSS | Peak heap used | Wall time |',
    '|---|---:|---:|---:|',
    ...run.sections.map(
      (s) =>
        `| ${s.title} | ${s.peakRssMiB == null ? 'n/a (no service process)' : `${s.peakRssMiB.toFixed(0)} MiB`} | ${s.peakHeapUsedMiB == null ? '' : `${s.peakHeapUsedMiB.toFixed(0)} MiB`} | ${s.seconds == null ? '' : `${s.seconds.toFixed(0)} s`} |`,
    ),
    '',
  );
  for (const s of run.sections) {
    out.push(`## ${s.title}`, '', s.setup, '');
    if (s.measures.length) out.push(...measuresTable(s.measures), '');
    for (const v of s.values) out.push(`- ${v.label}: ${v.value}`);
    if (s.values.length) out.push('');
    if (s.growth.length) out.push(...growthTable(s.growth), '');
    for (const t of s.tables) out.push(t.caption, '', `| ${t.header.join(' | ')} |`, `|${t.header.map((_, i) => (i ? '---:' : '---')).join('|')}|`, ...t.rows.map((r) => `| ${r.join(' | ')} |`), '');
  }
  if (run.failures.length) {
    out.push('## Benchmarks that failed in this run', '');
    for (const f of run.failures) out.push(`- ${f.title}: ${f.error}`);
    out.push('');
  }
  out.push(...MEASURED_ONCE);
  return out.join('\n');
}
