// The admin CLI as an operator runs it: a separate process, one JSON object on stdout, working while the
// server runs (in embedded mode through the embedded database's socket).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';

let app: TestApp;

beforeAll(async () => {
  // Answers are not cached here, so what the CLI imports shows at once.
  app = await startTestApp({ CATALOG_CACHE_SECONDS: '0' });
});
afterAll(() => app?.stop());

const admin = (...args: string[]) => runAdmin(app, ...args);

describe('admin CLI while the server runs', () => {
  it('migrate reports nothing left to apply', async () => {
    const r = await admin('migrate');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ applied: [] });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('catalog:import adds titles the running server serves at once, and a re-import adds none', async () => {
    const first = await admin('catalog:import', '--source', 'synthetic', '--synthetic-count', '7');
    expect(first.code).toBe(0);
    // A pipe gets JSON lines, not a bar: the source's first and last step (and at most one a second between).
    const steps = first.stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(steps[0]).toEqual({ source: 'synthetic', done: 0, total: 7 });
    expect(steps.at(-1)).toEqual({ source: 'synthetic', done: 7, total: 7 });
    for (const step of steps) expect(Object.keys(step)).toEqual(['source', 'done', 'total']);
    expect(new Set(steps.map((s) => JSON.stringify(s))).size).toBe(steps.length);
    const result = JSON.parse(first.stdout) as { results: Array<{ source: string; titles: number }> };
    expect(result.results).toEqual([expect.objectContaining({ source: 'synthetic', titles: 7 })]);

    const res = await fetch(`${app.url}/api/public/v1/catalog/discover?type=show&limit=100`);
    const { items } = (await res.json()) as { items: Array<{ movieDbId: number }> };
    expect(items.map((i) => i.movieDbId).sort()).toEqual([9000001, 9000002, 9000003, 9000004, 9000005, 9000006, 9000007]);

    const again = await admin('catalog:import', '--source', 'synthetic', '--synthetic-count', '7');
    expect(again.code).toBe(0);
    const after = (await (await fetch(`${app.url}/api/public/v1/catalog/discover?type=show&limit=100`)).json()) as { items: unknown[] };
    expect(after.items).toHaveLength(7);
  });

  it('rejects an unknown command with usage and exit 2', async () => {
    const r = await admin('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('usage');
  });

  it('rejects a bad option with the command usage and exit 2', async () => {
    const r = await admin('catalog:import', '--source', 'nowhere');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown source');
  });
});
