// Bearer verification: what checking an access token costs a platform request (the token, its grant and
// the app's active flag), measured in-process, and GET /me through the whole service at 16
// connections. Tokens are issued by the provider itself, as a completed flow would.
import autocannon from 'autocannon';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { createLogger } from '../src/core/log.ts';
import { actorForToken } from '../src/oauth/bearer.ts';
import { createOAuth } from '../src/oauth/index.ts';
import { RateLimits } from '../src/core/limits/limiter.ts';
import { benchDatabaseUrl, formatRow, percentile, startService, type Figures } from './lib.ts';
import { section, type Section } from './report.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const VERIFICATIONS = 3000;

export type AuthBench = { verify: { p50: number; p99: number; n: number }; me: Figures };

export async function benchAuth(): Promise<AuthBench> {
  const databaseUrl = benchDatabaseUrl();
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', BASE_URL: 'http://127.0.0.1' });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  let token: string;
  let verify: AuthBench['verify'];
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    const suffix = Math.random().toString(36).slice(2, 8);
    const user = await createUser(em, { username: `bench_${suffix}`, password: 'bench-password-1' });
    const app = await createApp(em, { name: 'Bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: ['profile:read'], confidential: false, official: false });
    const log = createLogger('silent');
    const { provider } = await createOAuth({ orm: db.orm, config, log, limits: new RateLimits({ prefix: 'bench', log, enabled: false }) });
    const grant = new provider.Grant({ accountId: user.id, clientId: app.client_id });
    grant.addOIDCScope('profile:read');
    const grantId = await grant.save();
    const client = await provider.Client.find(app.client_id);
    if (!client) throw new Error('bench app not found');
    const at = new provider.AccessToken({ accountId: user.id, client, grantId, scope: 'profile:read', gty: 'authorization_code' });
    token = await at.save();
    for (let i = 0; i < 200; i++) await actorForToken(provider, db.orm, token);
    const times: number[] = [];
    for (let i = 0; i < VERIFICATIONS; i++) {
      const t = process.hrtime.bigint();
      if (!(await actorForToken(provider, db.orm, token))) throw new Error('token not accepted');
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    verify = { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
  } finally {
    await db.close();
  }
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    const opts = { url: `${service.url}/api/platform/v1/me`, connections: CONNECTIONS, headers: { authorization: `Bearer ${token}` } };
    await autocannon({ ...opts, duration: 2 });
    const r = await autocannon({ ...opts, duration: SECONDS });
    if (r.non2xx || r.errors) throw new Error(`/me answered ${r.non2xx} non-2xx and ${r.errors} errors`);
    return { verify, me: { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total } };
  } finally {
    await service.stop();
  }
}

export function printAuth(b: AuthBench): void {
  console.log(`\nbearer authentication (services mode)`);
  console.log(`  token verification in-process (token, its grant, app active): p50 ${b.verify.p50.toFixed(2)} ms, p99 ${b.verify.p99.toFixed(2)} ms over ${b.verify.n} calls`);
  console.log(formatRow(`  GET /me through the service, ${CONNECTIONS} connections`, b.me));
}

export function authSection(b: AuthBench): Section {
  return section('Bearer authentication (services mode)', `Access-token verification in-process (the token, its grant, the app's active flag), and \`GET /me\` through the whole service at ${CONNECTIONS} connections. Issue 3 asks for the figures; it sets no target.`, {
    measures: [{ label: 'GET /me', figures: b.me }],
    values: [{ label: `Token verification in-process (${b.verify.n} calls)`, value: `p50 ${b.verify.p50.toFixed(2)} ms, p99 ${b.verify.p99.toFixed(2)} ms` }],
  });
}

if (import.meta.main) printAuth(await benchAuth());
