// The admin CLI explains itself: `--help` and `<command> --help` on stdout with exit 0, without the
// configuration or a database (this file starts no app: the CLI is pointed at a database that does not
// exist and a data directory it must not create). Also the choosers a pipe never shows: the progress
// bar on a terminal, and where a password comes from when stdin is a terminal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/command.ts';
import { commands } from '../../src/cli/commands.ts';
import { commandHelp } from '../../src/cli/help.ts';
import { progressKind } from '../../src/cli/progress.ts';
import { passwordSource } from '../../src/cli/password-input.ts';
import { runCli } from '../helpers/cli.ts';

const COMMANDS = [
  'migrate', 'catalog:import', 'catalog:refresh', 'user:create', 'user:set-password', 'app:create', 'app:activate', 'app:deactivate', 'app:rotate-secret',
  'list:feature', 'list:unfeature', 'list:import', 'import', 'jobs:status', 'stats:rebuild', 'db:serve',
];
const PREFIX = 'usage: npm run --silent admin --';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-help-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
const missingDir = path.join(scratch, 'never-made');
// Nothing listens on port 1, and the data directory does not exist: help must need neither.
const nowhere = (...args: string[]) => runCli({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATA_DIR: missingDir, LOG_LEVEL: 'warn' }, args);
const embeddedNowhere = (...args: string[]) => runCli({ DATABASE_URL: '', DATA_DIR: missingDir, LOG_LEVEL: 'warn' }, args);

describe('admin --help', () => {
  it('lists every command with a one-line description on stdout, exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await nowhere(flag);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines[0]).toBe(`${PREFIX} <command> [options]`);
      const listed = lines.filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s{2,}/));
      expect(listed.map(([name]) => name)).toEqual(COMMANDS);
      for (const [name, summary] of listed) expect(summary, name).toMatch(/^[A-Z].{10,}[^.]$/);
    }
    expect(fs.existsSync(missingDir)).toBe(false);
  });

  it('prints a command\'s usage, options and an example on stdout, exit 0, without a database', async () => {
    for (const args of [['user:create', '--help'], ['user:set-password', '--username', 'x', '-h'], ['db:serve', '--help']]) {
      const r = await (args[0] === 'db:serve' ? embeddedNowhere : nowhere)(...args);
      expect(r.stderr, args[0]).toBe('');
      expect(r.code, args[0]).toBe(0);
      expect(r.stdout).toBe(`${commandHelp(args[0]!, commands[args[0]!]!)}\n`);
    }
    expect(fs.existsSync(missingDir)).toBe(false);
  });

  it('every command\'s help has its usage, its summary, its options and an example of it', () => {
    expect(Object.keys(commands)).toEqual(COMMANDS);
    for (const [name, command] of Object.entries(commands)) {
      const lines = commandHelp(name, command).split('\n');
      expect(lines[0]).toBe(`${PREFIX} ${command.usage}`);
      expect(command.usage.split(' ')[0]).toBe(name);
      expect(lines[2]).toBe(`${name}: ${command.summary}`);
      for (const [flag] of command.options ?? []) expect(lines.some((l) => l.startsWith(`  ${flag}  `)), `${name} ${flag}`).toBe(true);
      // Every option the usage names is explained.
      for (const flag of command.usage.match(/--[a-z-]+/g) ?? []) expect((command.options ?? []).some(([f]) => f.split(' ')[0] === flag), `${name} ${flag}`).toBe(true);
      expect(lines.slice(-2)).toEqual(['Example:', `  npm run --silent admin -- ${command.example}`]);
      expect(command.example.split(' ')[0]).toBe(name);
    }
  });

  it('an unknown command or none is still a usage mistake: exit 2, usage on stderr, nothing on stdout', async () => {
    for (const args of [['frobnicate', '--help'], []]) {
      const r = await nowhere(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${PREFIX} <command>`);
    }
  });
});

describe('choosers a pipe never shows', () => {
  it('catalog:import progress: a bar on a terminal, JSON lines otherwise', () => {
    expect(progressKind(true)).toBe('bar');
    expect(progressKind(false)).toBe('json-lines');
    expect(progressKind(undefined)).toBe('json-lines');
  });

  it('the password: --password, else stdin unless it is a terminal (then --password-stdin is needed)', () => {
    expect(passwordSource({ password: 'p' }, true)).toBe('option');
    expect(passwordSource({ 'password-stdin': true }, true)).toBe('stdin');
    expect(passwordSource({}, false)).toBe('stdin');
    expect(() => passwordSource({}, true)).toThrow(UsageError);
    expect(() => passwordSource({ password: 'p', 'password-stdin': true }, false)).toThrow(UsageError);
  });
});
