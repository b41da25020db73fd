// Configuration: defaults, and a bad value stops start-up with exit 1 and one line naming the variable.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');

// Vitest puts its own BASE_URL ("/") into the environment: start from a clean one.
function start(env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'REDIS_URL', 'PORT', 'DATA_DIR', 'BASE_URL', 'LOG_LEVEL', 'HOST'].includes(k)));
  return spawnSync(process.execPath, [main], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 120_000 });
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      baseUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      dataDir: path.resolve('./.data'),
      redisUrl: undefined,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      BASE_URL: 'https://tracker.example/',
      DATABASE_URL: 'postgres://u@db:5432/x',
      DATA_DIR: '/var/lib/x',
      REDIS_URL: 'redis://cache:6379',
      LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      port: 8080,
      baseUrl: 'https://tracker.example',
      databaseUrl: 'postgres://u@db:5432/x',
      dataDir: '/var/lib/x',
      redisUrl: 'redis://cache:6379',
      logLevel: 'warn',
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['BASE_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '101'],
    ['DATABASE_POOL_SIZE', '2.5'],
    ['DATABASE_PREPARED_STATEMENTS', 'yes'],
    ['SIGNUPS', 'maybe'],
    ['APP_REGISTRATION', 'yes'],
    ['HEADERS_TIMEOUT_MS', '999'],
    ['HEADERS_TIMEOUT_MS', '30001'],
    ['MAX_CONNECTIONS', '0'],
    ['MAX_CONNECTIONS', 'many'],
    ['DATA_DIR_MIN_FREE_MB', '-1'],
    ['DATABASE_CREATE', 'yes'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid configuration: ${name} `));
  });
});

describe('database connection settings', () => {
  it('never creates a missing database unless DATABASE_CREATE=true', () => {
    expect(loadConfig({}).databaseCreate).toBe(false);
    expect(loadConfig({ DATABASE_CREATE: 'false' }).databaseCreate).toBe(false);
    expect(loadConfig({ DATABASE_CREATE: 'true' }).databaseCreate).toBe(true);
  });

  it('keeps 10 connections with named statements by default; 1 to 100 connections, on or off', () => {
    expect(loadConfig({})).toMatchObject({ poolSize: 10, preparedStatements: true });
    expect(loadConfig({ DATABASE_POOL_SIZE: '1', DATABASE_PREPARED_STATEMENTS: 'off' })).toMatchObject({ poolSize: 1, preparedStatements: false });
    expect(loadConfig({ DATABASE_POOL_SIZE: '100', DATABASE_PREPARED_STATEMENTS: 'on' })).toMatchObject({ poolSize: 100, preparedStatements: true });
  });
});

describe('connection and disk settings', () => {
  it('cut headers after 15 s, hold 10,000 connections and want 64 MiB free by default', () => {
    expect(loadConfig({})).toMatchObject({ headersTimeoutMs: 15_000, maxConnections: 10_000, dataDirMinFreeBytes: 64 * 1024 * 1024 });
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '1000', MAX_CONNECTIONS: '1', DATA_DIR_MIN_FREE_MB: '0' })).toMatchObject({ headersTimeoutMs: 1_000, maxConnections: 1, dataDirMinFreeBytes: 0 });
    // Node refuses a headers timeout longer than the request timeout (30 s).
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '30000' }).headersTimeoutMs).toBe(30_000);
  });
});

describe('sign-ups', () => {
  it('are open by default, open or closed, and anything else names SIGNUPS and what it may be', () => {
    expect(loadConfig({}).signups).toBe('open');
    expect(loadConfig({ SIGNUPS: 'closed' }).signups).toBe('closed');
    expect(loadConfig({ SIGNUPS: 'open' }).signups).toBe('open');
    expect(() => loadConfig({ SIGNUPS: 'Closed' })).toThrow('invalid configuration: SIGNUPS must be open or closed (got "Closed")');
  });
});

describe('app registration', () => {
  it('is open by default; open or closed', () => {
    expect(loadConfig({}).appRegistration).toBe(true);
    expect(loadConfig({ APP_REGISTRATION: 'open' }).appRegistration).toBe(true);
    expect(loadConfig({ APP_REGISTRATION: 'closed' }).appRegistration).toBe(false);
    expect(() => loadConfig({ APP_REGISTRATION: 'Closed' })).toThrow('invalid configuration: APP_REGISTRATION must be open or closed (got "Closed")');
  });
});

describe('start-up with a bad value', () => {
  it.each([
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://nope'],
    ['LOG_LEVEL', 'loud'],
    ['SIGNUPS', 'no'],
  ])('exits 1 with one line naming %s', (name, value) => {
    const r = start({ [name]: value });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(r.stdout).toBe('');
  });
});
