// GET /metrics: Prometheus text format behind METRICS_TOKEN (off without it), request durations by
// route template and status, rate-limit rejections by bucket, job runs, open event streams, database
// pool use and the process defaults. The registry is one per process and the apps of this file share
// it, so every check compares a series before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordJobRun } from '../src/core/metrics/registry.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, platform, type Member } from './helpers/seed.ts';

const TOKEN = 'metrics-test-token-0123456789';
let app: TestApp;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMITS: 'on' });
  alice = await member(app, 'alice_metrics', ['lists:read', 'events:read']);
});
afterAll(() => app?.stop());

async function scrape(target: TestApp = app): Promise<string> {
  const res = await fetch(`${target.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of one series (exact label set, in prom-client's order), or 0 when it is not there yet. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const duration = (route: string, method: string, status: number) =>
  `http_request_duration_seconds_count{route="${route}",method="${method}",status="${status}"}`;

describe('GET /metrics', () => {
  it('answers in the Prometheus text format with every metric of the service and the process defaults', async () => {
    const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Answered before the pipeline: no request id, no rate-limit headers.
    expect(res.headers.get('x-service-request-id')).toBeNull();
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    const text = await res.text();
    for (const [name, type] of [
      ['http_request_duration_seconds', 'histogram'],
      ['rate_limit_rejections_total', 'counter'],
      ['job_runs_total', 'counter'],
      ['job_run_duration_seconds', 'histogram'],
      ['sse_connections_open', 'gauge'],
      ['db_pool_connections', 'gauge'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
    for (const state of ['in_use', 'idle', 'waiting']) expect(text).toMatch(new RegExp(`^db_pool_connections\\{state="${state}"\\} \\d+$`, 'm'));
  });

  it('needs the metrics token as a bearer token', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${alice.token}` }]) {
      const res = await fetch(`${app.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toContain('http_request_duration_seconds');
    }
  });

  it('is off (404) when METRICS_TOKEN is unset', async () => {
    const plain = await startTestApp();
    try {
      const res = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('http_request_duration_seconds');
    } finally {
      await plain.stop();
    }
  });
});

describe('series', () => {
  it('counts a request once under its route template and status, never its raw path', async () => {
    const listId = '987654321';
    const listRoute = duration('/api/platform/v1/lists/{id}', 'GET', 404);
    const unmatched = duration('unmatched', 'GET', 404);
    const health = duration('/healthz', 'GET', 200);
    const before = await scrape();

    expect((await platform(app, alice.token, 'GET', `/lists/${listId}`)).status).toBe(404);
    expect((await fetch(`${app.url}/no/such/path/12345`)).status).toBe(404);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    const after = await scrape();
    expect(value(after, listRoute) - value(before, listRoute)).toBe(1);
    expect(value(after, unmatched) - value(before, unmatched)).toBe(1);
    expect(value(after, health) - value(before, health)).toBe(1);
    // Raw paths would show in label values; numbers elsewhere (CPU seconds, sums) may hold any digits.
    const labelValues = [...after.matchAll(/="([^"]*)"/g)].map((m) => m[1]!);
    expect(labelValues.filter((v) => v.includes(listId) || v.includes('12345'))).toEqual([]);
    // Scrapes are not requests of the service.
    expect(after).not.toContain('route="/metrics"');
  });

  it('counts a 429 under the bucket that rejected it', async () => {
    const series = 'rate_limit_rejections_total{bucket="device-code"}';
    const before = value(await scrape(), series);
    // device-code: 10 an hour per address; the eleventh is rejected before its body is read.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await fetch(`${app.url}/api/platform/v1/auth/device/code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 10)).not.toContain(429);
    expect(statuses[10]).toBe(429);
    const after = await scrape();
    expect(value(after, series) - before).toBe(1);
    expect(value(after, duration('/api/platform/v1/auth/device/code', 'POST', 429))).toBeGreaterThanOrEqual(1);
  });

  it('shows an open event stream in sse_connections_open until it closes', async () => {
    const before = value(await scrape(), 'sse_connections_open');
    const abort = new AbortController();
    const res = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${alice.token}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(': connected');
    expect(value(await scrape(), 'sse_connections_open')).toBe(before + 1);
    abort.abort();
    await reader.read().catch(() => undefined);
    await expect.poll(async () => value(await scrape(), 'sse_connections_open'), { timeout: 30_000 }).toBe(before);
  });

  it('counts job runs and failures', async () => {
    const ok = 'job_runs_total{job="metrics-test",outcome="ok"}';
    const failed = 'job_runs_total{job="metrics-test",outcome="failed"}';
    recordJobRun('metrics-test', 'ok', 0.2);
    recordJobRun('metrics-test', 'failed', 3);
    recordJobRun('metrics-test', 'failed', 0.01);
    const text = await scrape();
    expect(value(text, ok)).toBe(1);
    expect(value(text, failed)).toBe(2);
    expect(value(text, 'job_run_duration_seconds_sum{job="metrics-test",outcome="failed"}')).toBeCloseTo(3.01);
  });

  it('reports the database pool in use', async () => {
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    const text = await scrape();
    const open = value(text, 'db_pool_connections{state="in_use"}') + value(text, 'db_pool_connections{state="idle"}');
    expect(open).toBeGreaterThanOrEqual(1);
    expect(value(text, 'db_pool_connections{state="waiting"}')).toBeGreaterThanOrEqual(0);
  });
});
