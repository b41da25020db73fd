// Runs the admin CLI as an operator does: a separate process, pointed at a running test app's database
// (in embedded mode through the embedded database's socket), or at any environment a test gives it.
// Its stdin is a pipe that carries `input` (if any) and is then closed, as `echo ... | admin ...` does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from './app.ts';

const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');

export type CliRun = { code: number | null; stdout: string; stderr: string };

export type CliOptions = { input?: string };

/** The CLI with exactly this environment over the test process's own. */
export function runCli(env: Record<string, string | undefined>, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env } as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** The CLI against the app's database. */
export function runAdmin(app: TestApp, ...args: string[]): Promise<CliRun> {
  return runAdminWith(app, args);
}

/** `env`: more environment for the CLI (a test's provider settings, say), over the app's. */
export function runAdminWith(app: TestApp, args: string[], opts: CliOptions & { env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  const env = {
    DATA_DIR: app.db.embedded?.socketDir ?? '',
    LOG_LEVEL: 'warn',
    BASE_URL: undefined,
    DATABASE_URL: app.db.mode === 'services' ? (app.db.orm.config.get('clientUrl') as string) : '',
    ...opts.env,
  };
  return runCli(env, args, opts);
}
