// The deployment files (Dockerfile, compose.yaml, deploy/nginx.conf) cannot be built or started here
// (no image registry): these checks hold them to what the service needs, so a change on either side that
// breaks the deployment fails a test.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

type ComposeService = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
  profiles?: string[];
  init?: boolean;
};

const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService>; volumes?: Record<string, unknown> };
const services = compose.services;
const nginx = read('deploy/nginx.conf');
const dockerfile = read('Dockerfile');

/** Dockerfile instructions, continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const instruction = (name: string) => instructions.filter((l) => l.startsWith(`${name} `));

describe('Dockerfile', () => {
  it('runs the sources with an official Node 24 image, production dependencies only, as a non-root user', () => {
    expect(instruction('FROM')).toEqual([expect.stringMatching(/^FROM node:24[-.\w]*$/)]);
    expect(instruction('RUN').some((l) => /npm ci --omit=dev/.test(l))).toBe(true);
    expect(instruction('USER')).toEqual(['USER node']);
    expect(instruction('EXPOSE')).toEqual(['EXPOSE 3000']);
    // npm start's command, V8 heap options included (test/unit/start-options.test.ts keeps the two equal).
    expect(instruction('CMD')).toEqual(['CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "src/main.ts"]']);
    for (const dir of ['src', 'migrations']) expect(instruction('COPY').some((l) => l.includes(` ${dir} `))).toBe(true);
  });

  it('checks its health on the liveness route the service serves', () => {
    const [healthcheck] = instruction('HEALTHCHECK');
    expect(healthcheck).toMatch(/\/healthz/);
    expect(read('src/rest/health.ts')).toMatch(/r\.get\('\/healthz'/);
  });

  it('keeps local state and dev files out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const entry of ['node_modules', '.data', '.git', 'test', 'bench']) expect(ignored).toContain(entry);
  });

  it('installs every package the service imports: each is a runtime dependency, not a dev one', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };
    const runtime = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const imported = new Set<string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else if (e.name.endsWith('.ts')) {
          for (const m of read(rel).matchAll(/(?:from\s+|import\(\s*|require(?:\.resolve)?\(\s*)'([^'.][^']*)'/g)) {
            const spec = m[1]!;
            if (spec.startsWith('node:')) continue;
            imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
          }
        }
      }
    };
    walk('src');
    walk('migrations');
    expect(imported.size).toBeGreaterThan(10);
    expect([...imported].filter((name) => !runtime.has(name)).sort()).toEqual([]);
  });
});

describe('compose.yaml', () => {
  const apps = ['app1', 'app2'].map((name) => services[name]!);

  it('runs PostgreSQL 15 or newer on a volume, and Redis 7', () => {
    const major = Number(/^postgres:(\d+)/.exec(services.postgres!.image!)?.[1]);
    expect(major).toBeGreaterThanOrEqual(15);
    expect(services.postgres!.volumes!.some((v) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(Object.keys(compose.volumes ?? {})).toContain(services.postgres!.volumes![0]!.split(':')[0]);
    expect(services.redis!.image).toMatch(/^redis:7\b/);
  });

  it('runs two app instances of the image with the same BASE_URL, DATABASE_URL and REDIS_URL, all valid configuration', () => {
    for (const app of apps) {
      expect(app.build).toBe('.');
      expect(app.init).toBe(true);
      expect(app.command).toBeUndefined();
    }
    const [a, b] = apps.map((app) => app.environment!);
    for (const key of ['BASE_URL', 'DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY']) {
      expect(a![key], key).toBeTruthy();
      expect(b![key], key).toBe(a![key]);
    }
    const config = loadConfig(a);
    expect(new URL(config.databaseUrl!).hostname).toBe('postgres');
    expect(new URL(config.redisUrl!).hostname).toBe('redis');
  });

  it('migrates once before the instances start; the catalog import is a one-off on demand', () => {
    expect(services.migrate!.command).toEqual(['node', 'src/cli.ts', 'migrate']);
    for (const app of apps) {
      expect(app.depends_on).toMatchObject({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    expect(services['catalog-import']!.command).toEqual(['node', 'src/cli.ts', 'catalog:import']);
    expect(services['catalog-import']!.profiles).toEqual(['setup']);
  });

  it('puts nginx in front with the deploy config, and the apps trust exactly its address', () => {
    const proxy = services.proxy!;
    expect(proxy.image).toMatch(/^nginx:/);
    expect(proxy.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    const address = (proxy.networks as Record<string, { ipv4_address?: string }>).backend!.ipv4_address;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    for (const app of apps) expect(loadConfig(app.environment).trustProxy).toEqual([address]);
  });
});

describe('deploy/nginx.conf', () => {
  it('balances over both instances on the service port', () => {
    expect(nginx).toMatch(/server app1:3000\b/);
    expect(nginx).toMatch(/server app2:3000\b/);
  });

  it('passes the client address in X-Forwarded-For', () => {
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$(remote_addr|proxy_add_x_forwarded_for);/);
  });

  it('streams playback events unbuffered with read timeouts far above the heartbeat', () => {
    const block = /location = \/api\/platform\/v1\/playback\/events \{([^}]*)\}/.exec(nginx)?.[1] ?? '';
    expect(block).toMatch(/proxy_buffering off;/);
    expect(block).toMatch(/proxy_read_timeout 1h;/);
  });

  it('accepts bodies above the service limits, so the service answers oversized ones itself', () => {
    expect(nginx).toMatch(/client_max_body_size 1m;/);
  });
});
