// Runs the admin CLI as an operator does: a separate process, pointed at a running test app's database
// (in embedded mode through the embedded database's socket).
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestApp } from './app.ts';

const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');

export type CliRun = { code: number | null; stdout: string; stderr: string };

export function runAdmin(app: TestApp, ...args: string[]): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: app.db.embedded?.socketDir ?? '', LOG_LEVEL: 'warn', BASE_URL: undefined };
  env.DATABASE_URL = app.db.mode === 'services' ? (app.db.orm.config.get('clientUrl') as string) : '';
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
