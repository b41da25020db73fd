// Embedded mode start-up: seconds from `node src/main.ts` on an empty DATA_DIR (demo catalog import
// included) until catalog search answers the real title, and the same after a restart on that data.
// Targets: first start within 90 s, restart within 10 s.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, sampleRss, stopChild, tempDataDir } from './lib.ts';
import { atMost, section, type Section } from './report.ts';

async function secondsUntilSearchAnswers(dataDir: string): Promise<number> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'src/main.ts')], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The demo account's instructions go to stderr on a first start: shown only if the start fails.
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const stopSampling = sampleRss(child);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${stderr}`);
      if (Date.now() - started > 180_000) throw new Error(`no answer within 180 s: ${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/public/v1/catalog/search?q=spirited%20away&limit=1`);
        const body = (await res.json()) as { items?: Array<{ movieDbId: number }> };
        if (body.items?.[0]?.movieDbId === 129) return (Date.now() - started) / 1000;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    stopSampling();
    await stopChild(child);
  }
}

export type StartupBench = { firstStartSeconds: number; restartSeconds: number };

export async function benchStartup(): Promise<StartupBench> {
  const dataDir = tempDataDir();
  try {
    const firstStartSeconds = await secondsUntilSearchAnswers(dataDir);
    const restartSeconds = await secondsUntilSearchAnswers(dataDir);
    return { firstStartSeconds, restartSeconds };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printStartup(b: StartupBench): void {
  console.log('\nstart-up (embedded mode, until search answers "spirited away" with the real title)');
  console.log(`  first start on an empty DATA_DIR, demo catalog import included: ${b.firstStartSeconds.toFixed(1)} s (target 90 s)`);
  console.log(`  restart on the same data: ${b.restartSeconds.toFixed(1)} s (target 10 s)`);
}

export function startupSection(b: StartupBench): Section {
  return section('Start-up (embedded mode)', 'Seconds from `node src/main.ts` until catalog search answers "spirited away" with the real title: on an empty DATA_DIR (the demo catalog import included), then restarted on that data.', {
    values: [
      { label: 'First start on an empty DATA_DIR, demo catalog import included', value: `${b.firstStartSeconds.toFixed(1)} s` },
      { label: 'Restart on the same data', value: `${b.restartSeconds.toFixed(1)} s` },
    ],
    targets: [atMost(2, 'first start within 90 s', b.firstStartSeconds, 90, 's'), atMost(2, 'restart within 10 s', b.restartSeconds, 10, 's')],
  });
}

if (import.meta.main) printStartup(await benchStartup());
