// The client package as a first-party app gets it: packed by npm, installed from the tarball into a
// project of its own in the temp folder (no path into this repository), type-checked strictly with library
// declarations checked, and run against the service: a public call, a platform call, the refresh on 401,
// sync writes with their Idempotency-Key, a typed error code, and the live events subscription (an event
// written by another client, the replay after the last event id, the refresh of a refused connection).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { pinnedLockfile } from './helpers/lockfile.ts';
import { postForm } from './helpers/oauth.ts';
import { member, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

const REPO = path.resolve(import.meta.dirname, '..');
const PACKAGE = path.join(REPO, 'packages/client');
const CONSUMER = path.join(import.meta.dirname, 'fixtures/client-consumer');
const run = promisify(execFile);

/** npm as a developer runs it: none of the variables of the `npm test` this file may run under. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle|config_local_prefix)/i.test(k)));
}

async function sh(cmd: string, args: string[], cwd: string, env = npmEnv()): Promise<string> {
  try {
    return (await run(cmd, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}\n${e.stdout ?? ''}\n${e.stderr ?? e.message}`, { cause: err });
  }
}

/** The tarball `npm pack` builds (prepack runs the package's build). */
async function pack(into: string): Promise<string> {
  await sh('npm', ['pack', '--pack-destination', into], PACKAGE);
  const [tarball, ...more] = fs.readdirSync(into).filter((f) => f.endsWith('.tgz'));
  if (!tarball || more.length) throw new Error(`expected one tarball in ${into}`);
  return path.join(into, tarball);
}

/**
 * A new project depending on the tarball, installed from npm's cache only (no network at test time): its
 * lockfile pins the registry packages to the repository's versions, whose tarballs `npm ci` cached.
 */
async function consumerProject(dir: string, tarball: string): Promise<void> {
  const root = readJson<{ devDependencies: Record<string, string> }>(path.join(REPO, 'package.json'));
  const client = readJson<{ name: string; version: string; dependencies: Record<string, string> }>(path.join(PACKAGE, 'package.json'));
  fs.cpSync(CONSUMER, dir, { recursive: true });
  const spec = `file:${path.relative(dir, tarball)}`;
  const manifest = {
    name: 'first-party-app',
    private: true,
    type: 'module',
    dependencies: { [client.name]: spec },
    // TypeScript: @trpc/client names it as a peer, which npm installs.
    devDependencies: { typescript: root.devDependencies.typescript ?? '' },
  };
  const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
  const local = { [client.name]: { spec, version: client.version, integrity, dependencies: client.dependencies } };
  const registry = (await sh('npm', ['config', 'get', 'registry'], dir)).trim();
  const lock = pinnedLockfile(readJson(path.join(REPO, 'package-lock.json')), registry, manifest, local);
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  await sh('npm', ['install', '--offline', '--no-audit', '--no-fund'], dir);
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

let app: TestApp;
let someone: Member;
let revoked: string;
let viewer: Member;
let writer: string;
let work: string;
let project: string;
let tarball: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  project = path.join(work, 'app');
  // Packing builds the router's declarations from source (the slow part): it runs while the service starts.
  const packed = pack(work);
  packed.catch(() => {});
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  someone = await member(app, 'firstparty', ['profile:read']);
  const other = await member(app, 'stale', ['profile:read']);
  const answer = await postForm(`${app.url}/api/platform/v1/oauth/revoke`, { client_id: other.clientId, token: other.token });
  expect(answer.status).toBe(200);
  revoked = other.token;
  viewer = await member(app, 'liveapp', ['history:write', 'events:read']);
  writer = await tokenWith(app, viewer, ['playback:write']);
  tarball = await packed;
  await consumerProject(project, tarball);
});

afterAll(async () => {
  await app?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the client package', () => {
  it('ships built JavaScript and self-contained declarations', () => {
    const installed = path.join(project, 'node_modules/@media-tracking/client');
    expect(fs.readdirSync(path.join(installed, 'dist')).sort()).toEqual([
      'app-router.d.ts',
      'idempotency.d.ts',
      'idempotency.js',
      'index.d.ts',
      'index.js',
      'refresh-link.d.ts',
      'refresh-link.js',
      'subscriptions.d.ts',
      'subscriptions.js',
    ]);
    const manifest = readJson<{ dependencies: Record<string, string> }>(path.join(installed, 'package.json'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@trpc/client', '@trpc/server', 'eventsource']);
    for (const file of fs.readdirSync(path.join(installed, 'dist'))) {
      expect(fs.readFileSync(path.join(installed, 'dist', file), 'utf8')).not.toMatch(/from ['"]\.\.\/|src\/rpc|@mikro-orm|zod/);
    }
  });

  it('type-checks a strict consumer, and rejects wrong inputs', async () => {
    // The consumer's `@ts-expect-error` lines fail the check if inputs or outputs were `any`.
    await sh(path.join(REPO, 'node_modules/.bin/tsc'), ['-p', project], project);
  });

  it('calls the public and platform APIs, refreshing a rejected token once', async () => {
    const args = { baseUrl: app.url, good: someone.token, revoked, live: { token: viewer.token, writer, movieDbId: SPIRITED_AWAY } };
    const stdout = await sh(process.execPath, ['main.mjs', JSON.stringify(args)], project);
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(result.search).toEqual([{ movieDbId: SPIRITED_AWAY, name: 'Spirited Away', year: 2001, type: 'movie' }]);
    expect(result.me).toEqual({
      id: someone.userId,
      username: 'firstparty',
      displayName: 'firstparty',
      avatarUrl: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      scopes: ['profile:read'],
      app: { clientId: someone.clientId, name: 'Living Room TV', official: false },
    });
    expect(result.fixedRevoked).toEqual({ unauthorized: true, status: 401 });
    expect(result.refreshed).toEqual({ usernames: ['firstparty', 'firstparty'], found: [SPIRITED_AWAY], asked: [false, true, false] });
    expect(result.hopeless).toEqual({ result: { unauthorized: true, status: 401 }, asked: [false, true] });

    // Sync writes: a key made for the call, sent again unchanged after the refresh; a given key replays.
    const sync = result.sync as Record<string, Record<string, unknown>>;
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(sync.generated).toEqual({ status: ['inserted'], replayed: false, asked: [false, true], keys: [expect.stringMatching(uuid), expect.stringMatching(uuid)] });
    const [refused, retried] = sync.generated!.keys as string[];
    expect(retried).toBe(refused);
    expect(sync.given).toEqual({ replayed: [false, true], same: true, keys: [expect.stringMatching(/^consumer-/), expect.stringMatching(/^consumer-/), expect.stringMatching(/^consumer-/)] });
    expect(new Set(sync.given!.keys as string[]).size).toBe(1);
    expect(sync.conflict).toEqual({ error: 'idempotency_conflict', status: 409 });

    // Live events: the stream's start, then the other client's event; the missed one replayed after the
    // last id; a refused connection (revoked token) refreshed and connected.
    expect(result.events).toEqual({
      first: ['stream.open', 'playback.start'],
      resumed: ['playback.pause'],
      resumedAfter: true,
      increasing: true,
      refreshed: { first: 'stream.open', asked: [false, true] },
    });
  });
});
