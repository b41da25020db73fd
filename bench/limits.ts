// What the rate limiter costs a request, in services mode: one check of an authenticated read's buckets
// (per token and per app) against Redis and against memory, and GET /me through the whole service with
// the limits on and off. Tokens are spread over many apps and users so no bucket fills: this measures
// counting, not refusing.
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { RateLimits } from '../src/core/limits/limiter.ts';
import { generalBuckets } from '../src/core/limits/table.ts';
import { createLogger } from '../src/core/log.ts';
import { createOAuth } from '../src/oauth/index.ts';
import { benchDatabaseUrl, formatRow, percentile, startService, type Figures } from './lib.ts';
import { section, type Section } from './report.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CHECKS = 5000;
/**
 * Enough that no token's 300 reads a minute fill within a run (11 s with the warm-up) up to 4,000
 * requests/s: 48 were enough at ~1,000 requests/s, and GET /me now runs at ~1,600.
 */
const TOKENS = 200;

type Timing = { p50: number; p99: number };

async function timeChecks(limits: RateLimits): Promise<Timing> {
  const times: number[] = [];
  for (let i = 0; i < CHECKS + 200; i++) {
    const buckets = generalBuckets({ read: true, calls: 1, ip: '127.0.0.1', actor: { userId: `u${i}`, clientId: `c${i % 50}` } });
    const t = process.hrtime.bigint();
    await limits.check(buckets);
    if (i >= 200) times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export type LimitsBench = { redis: Timing; memory: Timing; on: Figures; off: Figures };

export async function benchLimits(): Promise<LimitsBench> {
  const log = createLogger('silent');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  // Until connected the limiter would count in memory (its fallback): wait, so Redis is measured.
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const prefix = `bench${Date.now()}`;
  const redisTiming = await timeChecks(new RateLimits({ redis, prefix, log }));
  const memoryTiming = await timeChecks(new RateLimits({ prefix, log }));
  redis.disconnect();

  const databaseUrl = benchDatabaseUrl();
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  const tokens: string[] = [];
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', BASE_URL: 'http://127.0.0.1' });
    const { provider } = await createOAuth({ orm: db.orm, config, log, limits: new RateLimits({ prefix, log, enabled: false }) });
    for (let i = 0; i < TOKENS; i++) {
      const user = await createUser(em, { username: `lim_${prefix.slice(-6)}_${i}`, password: 'bench-password-1' });
      const app = await createApp(em, { name: `Bench ${i}`, redirectUris: ['http://127.0.0.1:1/cb'], scopes: ['profile:read'], confidential: false, official: false });
      const grant = new provider.Grant({ accountId: user.id, clientId: app.client_id });
      grant.addOIDCScope('profile:read');
      const grantId = await grant.save();
      const client = await provider.Client.find(app.client_id);
      if (!client) throw new Error('bench app not found');
      tokens.push(await new provider.AccessToken({ accountId: user.id, client, grantId, scope: 'profile:read', gty: 'authorization_code' }).save());
    }
  } finally {
    await db.close();
  }
  const requests = tokens.map((t) => ({ method: 'GET' as const, path: '/api/platform/v1/me', headers: { authorization: `Bearer ${t}` } }));
  const measure = async (rateLimits: 'on' | 'off'): Promise<Figures> => {
    const service = await startService({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, RATE_LIMITS: rateLimits, REDIS_KEY_PREFIX: `${prefix}${rateLimits}` });
    try {
      await autocannon({ url: service.url, connections: CONNECTIONS, duration: 1, requests });
      const r = await autocannon({ url: service.url, connections: CONNECTIONS, duration: SECONDS, requests });
      if (r.non2xx || r.errors) throw new Error(`/me answered ${r.non2xx} non-2xx and ${r.errors} errors (limits ${rateLimits})`);
      return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
    } finally {
      await service.stop();
    }
  };
  const off = await measure('off');
  const on = await measure('on');
  return { redis: redisTiming, memory: memoryTiming, on, off };
}

export function printLimits(b: LimitsBench): void {
  console.log('\nrate limiter (services mode)');
  console.log(`  one check of an authenticated read (2 buckets), Redis:  p50 ${b.redis.p50.toFixed(3)} ms, p99 ${b.redis.p99.toFixed(3)} ms`);
  console.log(`  one check of an authenticated read (2 buckets), memory: p50 ${b.memory.p50.toFixed(3)} ms, p99 ${b.memory.p99.toFixed(3)} ms`);
  console.log(formatRow('  GET /me, limits off', b.off));
  console.log(formatRow('  GET /me, limits on (Redis)', b.on));
  console.log(`  throughput with limits / without: ${(b.on.requestsPerSecond / b.off.requestsPerSecond).toFixed(2)}`);
}

export function limitsSection(b: LimitsBench): Section {
  return section('Rate limiter (services mode)', `One check of an authenticated read's two buckets (per token, per app) against Redis and against memory, and \`GET /me\` through the service with the limits on (Redis) and off, ${TOKENS} tokens so no bucket fills, ${CONNECTIONS} connections. Issue 4 asks for the cost; it sets no target.`, {
    measures: [{ label: 'GET /me, limits on (Redis)', figures: b.on, baseline: { label: 'limits off', figures: b.off } }],
    values: [
      { label: 'One check, Redis', value: `p50 ${b.redis.p50.toFixed(3)} ms, p99 ${b.redis.p99.toFixed(3)} ms` },
      { label: 'One check, memory', value: `p50 ${b.memory.p50.toFixed(3)} ms, p99 ${b.memory.p99.toFixed(3)} ms` },
    ],
  });
}

if (import.meta.main) printLimits(await benchLimits());
