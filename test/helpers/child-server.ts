// The service as a child process (`node src/main.ts`, or child-main.ts when a test gives it a hook), with
// its JSON log lines collected: for tests of what only a real process does (signals, exit codes, being
// killed, several instances side by side).
// The one place that spawns the service: spawnChild (a start to watch, or to kill midway), startChild
// (any environment, once listening; test/helpers/instances.ts starts a fleet with it) and startChildServer
// (one server on a test file's database).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { freePort } from './app.ts';
import type { TestDatabase } from './db.ts';
import { until } from './wait.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'src/main.ts');
const CHILD_MAIN = path.resolve(import.meta.dirname, 'child-main.ts');
/** The project's Node (24, from the `node` package); the system's may be older. */
const REPO_NODE = path.resolve(import.meta.dirname, '../../node_modules/.bin/node');
const NODE = fs.existsSync(REPO_NODE) ? REPO_NODE : process.execPath;

export type LogLine = Record<string, unknown>;

export type ChildServer = {
  name: string;
  /** The process's own address. */
  url: string;
  port: number;
  process: ChildProcess;
  /** Every JSON line it has logged so far. */
  logs: LogLine[];
  /** Its error and fatal lines (pino levels 50, 60), for failure messages. */
  errors(): LogLine[];
  /** The last 4,000 characters it wrote to stderr. */
  stderr(): string;
  /** Throws, with the tail of its stderr, if it has exited (a start that fails). */
  throwIfExited(): void;
  /** SIGTERM and wait for the exit; SIGKILL after `timeoutMs` (and throw: it did not stop cleanly). */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL unless it has already exited, and wait for the exit (a test's cleanup, whatever happened). */
  kill(): Promise<void>;
};

/** Resolves with the exit code (null when a signal ended it) once the process has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

/** Appends each JSON line of `stream` to `logs` (a line that is not JSON is ignored). */
function collectLogs(stream: Readable, logs: LogLine[]): void {
  let buffer = '';
  stream.on('data', (d: Buffer) => {
    buffer += d.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // Not a log line of ours: ignored.
      }
    }
  });
}

/** Hooks a child is built with (child-main.ts): `syncHoldMs`, each bulk sync write held open that long before its commit. */
export type ChildHooks = { syncHoldMs?: number };

/**
 * Spawns `node src/main.ts` with the test's environment plus `env` (which must name DATABASE_URL or
 * DATA_DIR, BASE_URL and so on: nothing of the parent's DATABASE_URL is passed on unless `env` has it),
 * on `opts.port` or a free port, and returns at once: for a test that watches a start under way (and may
 * kill it before it listens). With `opts.hooks`, the service is child-main.ts's, built with them; with
 * `opts.npm`, it is `npm start` in the repository, as a newcomer runs it (`process` is then npm's).
 */
export async function spawnChild(name: string, env: Record<string, string>, opts: { port?: number; hooks?: ChildHooks; npm?: boolean } = {}): Promise<ChildServer> {
  const port = opts.port ?? (await freePort());
  const childEnv: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, PORT: String(port) };
  const args = opts.hooks ? [CHILD_MAIN, ...(opts.hooks.syncHoldMs ? ['--sync-hold-ms', String(opts.hooks.syncHoldMs)] : [])] : [MAIN];
  const child = opts.npm
    ? spawn('npm', ['start'], { cwd: ROOT, env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(NODE, args, { env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: LogLine[] = [];
  collectLogs(child.stdout!, logs);
  // Stderr is passed through to the test's output, and its tail kept for the errors below (read either
  // way: a full pipe would stall the child).
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    process.stderr.write(d);
    stderr = (stderr + d.toString('utf8')).slice(-4000);
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  };
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    logs,
    errors: () => logs.filter((l) => typeof l.level === 'number' && l.level >= 50),
    stderr: () => stderr,
    throwIfExited() {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${stderr}`);
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = new Promise<'late'>((r) => setTimeout(() => r('late'), timeoutMs).unref());
        if ((await Promise.race([exited(child), timer])) === 'late') {
          await kill();
          throw new Error(`${name} did not exit within ${timeoutMs} ms of SIGTERM: ${stderr}`);
        }
      }
      return { code: child.exitCode, signal: child.signalCode };
    },
    kill,
  };
}

/** Waits until `child` logs a line `matches` accepts and returns it; throws if it exits first. */
export async function waitForLog(child: ChildServer, what: string, matches: (line: LogLine) => boolean, timeoutMs = 60_000): Promise<LogLine> {
  let found: LogLine | undefined;
  try {
    await until(
      `${child.name} to log ${what}`,
      () => {
        found = child.logs.find(matches);
        if (!found) child.throwIfExited();
        return found !== undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    // Where it was: slow and still going, or stuck.
    throw new Error(`${(err as Error).message}; its last line: ${JSON.stringify(child.logs.at(-1) ?? null)}`, { cause: err });
  }
  return found!;
}

/** spawnChild, resolved once the process logs "listening" (SIGKILLed if it does not). */
export async function startChild(name: string, env: Record<string, string>, opts: { port?: number; timeoutMs?: number; hooks?: ChildHooks } = {}): Promise<ChildServer> {
  const child = await spawnChild(name, env, opts);
  try {
    await waitForLog(child, '"listening"', (l) => l.msg === 'listening', opts.timeoutMs ?? 90_000);
  } catch (err) {
    await child.kill();
    throw err;
  }
  return child;
}

/**
 * One server on a test file's database (migrated and seeded in-process first, then closed, so the child
 * owns it): its own origin as BASE_URL, no demo data, no rate limits, no trophy job, a Redis key prefix
 * of its own; `extraEnv` adds to or overrides that. `hooks`: built with them (spawnChild).
 */
export async function startChildServer(database: TestDatabase, extraEnv: Record<string, string> = {}, hooks?: ChildHooks): Promise<ChildServer> {
  const port = await freePort();
  return startChild(
    'server',
    {
      BASE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
      DEMO_DATA: 'off',
      RATE_LIMITS: 'off',
      TROPHY_INTERVAL_MS: '0',
      REDIS_KEY_PREFIX: `child${process.pid}_${port}`,
      ...extraEnv,
    },
    { port, ...(hooks ? { hooks } : {}) },
  );
}
