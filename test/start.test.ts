// `npm start` as a newcomer runs it: a first start on an empty DATA_DIR imports the demo catalog by itself
// (the port answering 503 meanwhile) and answers a search with the real title; a restart keeps the data
// and imports nothing again; SIGTERM stops it cleanly. Embedded mode only (the demo import is for the embedded database). Start-up times
// are measured by `npm run bench` (bench/startup.ts), not asserted here.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.ts';
import { IMPORT_DEADLINE_MS } from './helpers/catalog.ts';
import { servicesMode } from './helpers/db.ts';
import { until } from './helpers/wait.ts';

const main = path.resolve(import.meta.dirname, '../src/main.ts');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-start-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

type Early = { ready: { status: number; body: unknown }; search: { status: number; body: unknown } };
type Started = { child: ChildProcess; url: string; logs: Array<Record<string, unknown>>; stderr: () => string; duringImport: Early | undefined };

/** `watchImport`: the answers of /readyz and of a search while the demo import runs (a first start). */
async function start(opts: { watchImport?: boolean } = {}): Promise<Started> {
  // A port free now, not a random one: a random pick in the kernel's ephemeral range (32768-60999 here)
  // can be a port some outgoing connection of another test holds.
  const port = await freePort();
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'BASE_URL', 'DEMO_DATA']) delete env[name];
  const child = spawn(process.execPath, [main], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  let buffer = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line) logs.push(JSON.parse(line));
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const answer = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: (await res.json()) as unknown };
  };
  let duringImport: Early | undefined;
  try {
    if (opts.watchImport) {
      // The port is claimed first; the import takes many seconds behind it.
      await until(
        'readiness to name the demo import',
        async () => {
          if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr}`);
          if (!logs.some((l) => l.msg === 'port claimed: answering 503 until started')) return false;
          return ((await answer('/readyz')).body as { step?: string }).step === 'importing the demo catalog';
        },
        IMPORT_DEADLINE_MS,
        100,
      );
      duringImport = { ready: await answer('/readyz'), search: await answer('/api/public/v1/catalog/search?q=spirited%20away') };
    }
    // A first start imports the demo catalog before it is ready ("listening").
    await until(
      '"listening"',
      () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${stderr}`);
        return logs.some((l) => l.msg === 'listening');
      },
      IMPORT_DEADLINE_MS,
      100,
    );
  } catch (err) {
    // Not left importing behind the failed test.
    child.kill('SIGKILL');
    throw err;
  }
  return { child, url, logs, stderr: () => stderr, duringImport };
}

function stop(s: Started): Promise<number | null> {
  return new Promise((resolve) => {
    s.child.once('exit', (code) => resolve(code));
    s.child.kill('SIGTERM');
  });
}

async function searchSpiritedAway(url: string) {
  const res = await fetch(`${url}/api/public/v1/catalog/search?q=spirited%20away`);
  expect(res.status).toBe(200);
  const { items } = (await res.json()) as { items: Array<Record<string, unknown>> };
  return items[0];
}

describe.skipIf(servicesMode)('npm start in embedded mode', () => {
  it('imports the demo catalog on a first start and answers with the real title', async () => {
    const s = await start({ watchImport: true });
    try {
      expect(s.duringImport).toEqual({
        ready: { status: 503, body: { status: 'starting', step: 'importing the demo catalog' } },
        search: { status: 503, body: { message: 'The service is starting (importing the demo catalog); retry shortly' } },
      });
      expect(await searchSpiritedAway(s.url)).toMatchObject({ movieDbId: 129, name: 'Spirited Away', category: 'anime', year: 2001 });
      const imported = s.logs.find((l) => l.msg === 'demo catalog imported') as { results: Array<{ source: string; titles: number }> } | undefined;
      expect(imported?.results.map((r) => r.source)).toEqual(['movies_dataset', 'anime_data', 'synthetic']);
      expect(imported!.results.reduce((n, r) => n + r.titles, 0)).toBeGreaterThan(40_000);
      // The demo user and app, and how to try the device flow with them.
      const clientId = /Demo app \(public client\): (app_\S+)/.exec(s.stderr())?.[1];
      expect(s.stderr()).toMatch(/Demo account: username "demo", password "\S+"/);
      expect(s.stderr()).toContain(`curl -s -X POST ${s.url.replace('127.0.0.1', 'localhost')}/api/platform/v1/auth/device/code`);
      const code = await fetch(`${s.url}/api/platform/v1/auth/device/code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: clientId }),
      });
      expect(code.status).toBe(200);
    } finally {
      expect(await stop(s)).toBe(0);
    }
  }, IMPORT_DEADLINE_MS + 60_000);

  it('keeps the data across a restart and imports nothing again', async () => {
    const s = await start();
    try {
      expect(await searchSpiritedAway(s.url)).toMatchObject({ movieDbId: 129 });
      expect(s.logs.some((l) => String(l.msg).includes('demo'))).toBe(false);
      expect(s.logs.find((l) => l.msg === 'listening')).toMatchObject({ mode: 'embedded' });
    } finally {
      expect(await stop(s)).toBe(0);
    }
  });

  it('refuses a second server on a data directory another server owns', async () => {
    const s = await start();
    try {
      await expect(start()).rejects.toThrow(`exited with 5: the embedded database in DATA_DIR (${dataDir}) is already served by another process (socket ${dataDir}/.s.PGSQL.5432): stop that server, or choose another DATA_DIR\n`);
    } finally {
      await stop(s);
    }
  });
});
