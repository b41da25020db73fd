// The Node options the service runs with (package.json's start script, the Dockerfile's CMD): V8 heap
// sizing that keeps RSS under load near 250 MiB instead of 500 (docs/decisions.md, "Memory"). They are V8
// flags, which a Node upgrade may rename or drop, and then the service would not start at all: these fail
// first. The places must also say the same; the admin CLI (`npm run admin`) runs with them too: an
// import streams a large file through it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
// `exec`: the shell npm runs a script with is replaced by node, so the signals npm forwards reach the
// service (test/start-signals.test.ts); the command itself is what follows.
const [exec, ...start] = scripts.start!.split(/\s+/);
const options = start.slice(1, -1);

describe('the service\'s Node options', () => {
  it('npm start is exec node, its options, then src/main.ts', () => {
    expect(exec).toBe('exec');
    expect(start[0]).toBe('node');
    expect(start.at(-1)).toBe('src/main.ts');
    expect(options).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=50']);
  });

  it('npm run admin runs the CLI with the same options', () => {
    expect(scripts.admin!.split(/\s+/)).toEqual(['exec', 'node', ...options, 'src/cli.ts']);
  });

  it('the Dockerfile runs the same command', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(cmd!)).toEqual(start);
  });

  it('this Node accepts them', () => {
    const r = spawnSync(process.execPath, [...options, '-e', '0'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('an unknown V8 flag does stop Node, so the test above would catch a dropped one', () => {
    const r = spawnSync(process.execPath, ['--heap-growing-percent-that-does-not-exist=50', '-e', '0'], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
  });
});
