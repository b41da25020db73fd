// `admin import` as an operator runs it, while the server runs: the file goes into the user's account
// in the CLI's own process (the same run as /account/import: the user sees it there), progress on
// stderr, the summary on stdout; a second import of the file adds nothing; a file the reader refuses
// exits 1 with why and what went in; mistakes in the command line exit 2. Every source reads the
// test's JSON lines (the CLI as helpers/cli-main.ts builds it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import type { CliRun } from './helpers/cli.ts';
import { jsonLines, jsonLinesImporters } from './helpers/import-lines.ts';
import { makeUser } from './helpers/oauth.ts';
import { FIRST_SHOW, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';

const root = path.resolve(import.meta.dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-import-'));

let app: TestApp;

beforeAll(async () => {
  // The server's job is off: the CLI runs its import itself, to the end.
  app = await startTestApp({ IMPORT_INTERVAL_MS: '0' }, { deps: { importers: jsonLinesImporters } });
  await seedCatalog(app, { shows: 1 });
  await makeUser(app, 'lou_cli');
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The CLI with the JSON-lines reader, against the app's database. */
function admin(...args: string[]): Promise<CliRun> {
  const env = {
    ...process.env,
    DATA_DIR: app.db.embedded?.socketDir ?? '',
    LOG_LEVEL: 'warn',
    BASE_URL: undefined,
    DATABASE_URL: app.db.mode === 'services' ? (app.db.orm.config.get('clientUrl') as string) : '',
  } as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'test/helpers/cli-main.ts'), ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

function file(name: string, lines: unknown[]): string {
  const p = path.join(scratch, name);
  fs.writeFileSync(p, jsonLines(lines));
  return p;
}

const at = (row: number) => ({ file: 'history.json', row, label: `row ${row}` });
const RECORDS = [
  { kind: 'history', at: at(1), item: { movie_db_id: SPIRITED_AWAY, watched_at: '2021-05-01T20:00:00Z' } },
  { kind: 'history', at: at(2), item: { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: '2021-05-02T20:00:00Z' } },
  { kind: 'history', at: at(3), item: { movie_db_id: 99_999_999, watched_at: '2021-05-03T20:00:00Z' } },
  { kind: 'rating', at: at(4), item: { movie_db_id: SPIRITED_AWAY, rating: 9 } },
];

describe('admin import', () => {
  it('imports the file with progress on stderr and the summary on stdout', async () => {
    const r = await admin('import', '--user', 'lou_cli', '--source', 'trakt', '--file', file('export.jsonl', RECORDS));
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('{"source"'))).toEqual([]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toEqual({ run: expect.any(String), status: 'done', imported: 3, alreadyThere: 0, unmatched: 1, invalid: 0, error: null });
    // A pipe gets JSON lines: bytes of the file read, out of its size.
    const steps = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { source: string; done: number; total: number });
    const size = fs.statSync(path.join(scratch, 'export.jsonl')).size;
    expect(steps.at(-1)).toEqual({ source: 'import', done: size, total: size });
    // The user's run, as /account/import lists it.
    const [run] = await sql<{ status: string; source: string; file_name: string }>(app, 'select status, source, file_name from import_run where id = $1', [summary.run]);
    expect(run).toEqual({ status: 'done', source: 'trakt', file_name: 'export.jsonl' });
  });

  it('a second import of the same file adds nothing', async () => {
    const r = await admin('import', '--user', 'lou_cli', '--source', 'trakt', '--file', path.join(scratch, 'export.jsonl'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'done', imported: 0, alreadyThere: 3, unmatched: 1 });
  });

  it('a file the reader refuses exits 1 with the reason, and writes nothing', async () => {
    await makeUser(app, 'mo_cli');
    const r = await admin('import', '--user', 'mo_cli', '--source', 'letterboxd', '--file', file('cut.jsonl', [...RECORDS, { fail: 'the ZIP archive ends before its central directory' }]));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^import failed: the ZIP archive ends before its central directory \(run \d+: 0 imported, 0 already there, 0 unmatched, 0 invalid\)$/,
    );
    expect(await sql(app, "select 1 from watch_history h join app_user u on u.id = h.user_id where u.username = 'mo_cli'")).toEqual([]);
  });

  it('mistakes in the command line exit 2 with the usage', async () => {
    const cases: [string[], string][] = [
      [['--user', 'lou_cli', '--source', 'netflix', '--file', 'x'], '--source must be one of trakt, letterboxd, simkl, own'],
      [['--user', 'lou_cli', '--source', 'trakt', '--file', path.join(scratch, 'missing.json')], `no such file: ${path.join(scratch, 'missing.json')}`],
      [['--user', 'nobody_cli', '--source', 'trakt', '--file', path.join(scratch, 'export.jsonl')], 'no user named nobody_cli'],
      [['--source', 'trakt', '--file', 'x'], '--user is required'],
    ];
    for (const [args, message] of cases) {
      const r = await admin('import', ...args);
      expect(r.code, message).toBe(2);
      expect(r.stderr).toBe(`${message}\nusage: npm run --silent admin -- import --user USERNAME --source trakt|letterboxd|simkl|own --file PATH\n`);
    }
  });
});
