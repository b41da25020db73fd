// Webhook delivery in services mode (PostgreSQL + Redis, the real process): an app with one subscription
// to `history`, USERS users who granted it, and a receiver on loopback answering 204 at once. History
// writes (POST /watch-history, each a new entry) in two shapes, each first without the subscription (the
// baseline: what the writes cost alone) and then with it:
// - steady: RATE writes a second for SECONDS; the delivery lag of every write is the receiver's receipt
//   less the moment the write's answer came back (negative when the message beat the answer);
// - burst: BURST writes as fast as BURST_CONNECTIONS connections send them; lag as above, and
//   deliveries a second from the first write to the last receipt.
// CPU is the service's and its PostgreSQL backends', read from /proc around each run (until the last
// message arrived); CPU per delivery is a run's CPU less its baseline's per write, over the messages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUser } from '../src/core/accounts/service.ts';
import { registerOwnedApp } from '../src/core/apps/owned.ts';
import { loadConfig } from '../src/config.ts';
import { migrate, openDatabase, type Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { appOfOwner, createWebhook } from '../src/core/webhooks/service.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, percentile, post, prepareCatalog, startService, tempDataDir, tokenIssuer, type Figures, type Service } from './lib.ts';
import { section, type Section } from './report.ts';

const USERS = Number(process.env.BENCH_WEBHOOK_USERS ?? 20);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 25);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 20);
const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 1000);
const BURST_CONNECTIONS = 16;
const MOVIE = 129;
const SCOPES = 'history:read history:write';
/** Watches of one title within an hour are one entry: each user's writes go back in time this far apart. */
const STEP_MS = 3 * 3600 * 1000;

type Lag = { p50: number; p99: number; max: number; deliveries: number };
type Run = { writes: Figures; lag: Lag | null; deliveriesPerSecond: number | null; cpuMsPerWrite: number | null; cpuMs: number | null };
/** One shape of load without the subscription and with it; CPU per delivery from the two. */
type Pair = { name: string; baseline: Run; hooked: Run; cpuMsPerDelivery: number | null };
export type WebhookBench = { users: number; rate: number; seconds: number; burst: number; pairs: Pair[] };

/** The receiver: when each history message came, by the entry it carries. */
type Receiver = { url: string; receivedAt: Map<string, number>; close(): Promise<void> };

async function startReceiver(): Promise<Receiver> {
  const receivedAt = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data?: { change?: { resourceId?: string } } };
      const entry = message.data?.change?.resourceId;
      if (message.type === 'history.upsert' && entry && !receivedAt.has(entry)) receivedAt.set(entry, at);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    receivedAt,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

type Setup = { ownerId: string; clientId: string; tokens: string[] };

async function setUp(db: Database, databaseUrl: string): Promise<Setup> {
  const em = db.orm.em.fork();
  const suffix = Math.random().toString(36).slice(2, 8);
  const owner = await createUser(em, { username: `bench_wh_${suffix}_owner`, password: 'bench-password-1' });
  const app = await registerOwnedApp(em, owner.id, { name: 'Bench hooks', redirectUris: ['https://bench.example/cb'], scopes: SCOPES.split(' '), confidential: false });
  const issue = await tokenIssuer(db, databaseUrl, { connected: true });
  const tokens: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await createUser(em, { username: `bench_wh_${suffix}_${i}`, password: 'bench-password-1' });
    tokens.push(await issue(user.id, app.client_id, SCOPES));
  }
  return { ownerId: owner.id, clientId: app.client_id, tokens };
}

/** Each write is a new entry: the user's k-th write goes STEP_MS further back. */
const written = new Map<number, number>();
function writeBody(user: number): string {
  const k = (written.get(user) ?? 0) + 1;
  written.set(user, k);
  return JSON.stringify({ type: 'movie', movieDbId: MOVIE, watchedAt: new Date(Date.now() - k * STEP_MS).toISOString() });
}

/** The writes of a run: when each answer came, by the entry it made, and the writes' latencies. */
type Writes = { answeredAt: Map<string, number>; latencies: number[]; started: number; ended: number };

function writer(service: Service, tokens: string[]) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const one = async (w: Writes) => {
    const user = next++ % tokens.length;
    const t0 = performance.now();
    const res = await post(`${service.url}/api/platform/v1/watch-history`, { 'content-type': 'application/json', authorization: `Bearer ${tokens[user]}` }, writeBody(user), agent);
    const at = performance.now();
    if (res.status !== 200) throw new Error(`watch-history answered ${res.status}: ${res.body}`);
    const entry = (JSON.parse(res.body) as { items: Array<{ id: number }>; inserted: number }).items[0]!;
    w.answeredAt.set(String(entry.id), at);
    w.latencies.push(at - t0);
  };
  const fresh = (): Writes => ({ answeredAt: new Map(), latencies: [], started: performance.now(), ended: 0 });
  return {
    /** RATE writes a second for `seconds`, each sent on its schedule whether the one before has answered or not. */
    steady: async (seconds: number): Promise<Writes> => {
      const w = fresh();
      const pending: Promise<void>[] = [];
      const total = Math.round(RATE * seconds);
      for (let i = 0; i < total; i++) {
        const due = w.started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(one(w));
      }
      await Promise.all(pending);
      w.ended = performance.now();
      return w;
    },
    /** `count` writes, BURST_CONNECTIONS at a time. */
    burst: async (count: number): Promise<Writes> => {
      const w = fresh();
      let left = count;
      await Promise.all(
        Array.from({ length: BURST_CONNECTIONS }, async () => {
          while (left > 0) {
            left--;
            await one(w);
          }
        }),
      );
      w.ended = performance.now();
      return w;
    },
    close: () => agent.destroy(),
  };
}

function figures(w: Writes): Figures {
  const sorted = [...w.latencies].sort((a, b) => a - b);
  return { requestsPerSecond: sorted.length / ((w.ended - w.started) / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), requests: sorted.length };
}

/** Waits until every write of the run has its message (at most 60 s); the lags, and when the last came. */
async function lagsOf(w: Writes, receiver: Receiver): Promise<{ lag: Lag; lastAt: number }> {
  const deadline = Date.now() + 60_000;
  const missing = () => [...w.answeredAt.keys()].filter((e) => !receiver.receivedAt.has(e)).length;
  while (missing() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (missing() > 0) throw new Error(`${missing()} of ${w.answeredAt.size} messages did not arrive within 60 s`);
  const lags = [...w.answeredAt].map(([e, answered]) => receiver.receivedAt.get(e)! - answered).sort((a, b) => a - b);
  const lastAt = Math.max(...[...w.answeredAt.keys()].map((e) => receiver.receivedAt.get(e)!));
  return { lag: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1)!, deliveries: lags.length }, lastAt };
}

export async function benchWebhooks(): Promise<WebhookBench> {
  const databaseUrl = benchDatabaseUrl();
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  const receiver = await startReceiver();
  const pairs: Pair[] = [];
  const clean = () => query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_wh\\_%'`, params: [] });
  try {
    await migrate(db.orm);
    await clean();
    const setup = await setUp(db, databaseUrl);
    const service = await startService({
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `bench_${process.pid}`,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const load = writer(service, setup.tokens);
    try {
      const measured = async (run: () => Promise<Writes>, delivered: boolean): Promise<Run> => {
        const before = await cpuMark(db, service.child.pid);
        const w = await run();
        const received = delivered ? await lagsOf(w, receiver) : null;
        const after = await cpuMark(db, service.child.pid);
        const cpu = before && after ? cpuBetween(before, after) : null;
        const cpuMs = cpu ? cpu.server + cpu.backends : null;
        return {
          writes: figures(w),
          lag: received?.lag ?? null,
          deliveriesPerSecond: received ? received.lag.deliveries / ((received.lastAt - w.started) / 1000) : null,
          cpuMsPerWrite: cpuMs === null ? null : cpuMs / w.latencies.length,
          cpuMs,
        };
      };
      const shapes = [
        { name: `steady: ${RATE} writes/s for ${SECONDS} s`, run: () => load.steady(SECONDS) },
        { name: `burst: ${BURST} writes at ${BURST_CONNECTIONS} connections`, run: () => load.burst(BURST) },
      ];
      await load.steady(2); // warm-up: connections, prepared statements, the JIT
      const baselines = [];
      for (const shape of shapes) baselines.push(await measured(shape.run, false));

      const settings = loadConfig({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'silent' }).webhooks;
      const em = db.orm.em.fork();
      await createWebhook(em, await appOfOwner(em, setup.ownerId, setup.clientId), { url: receiver.url, kinds: ['history'] }, settings);
      for (const [i, shape] of shapes.entries()) {
        const baseline = baselines[i]!;
        const hooked = await measured(shape.run, true);
        const cpuMsPerDelivery =
          baseline.cpuMsPerWrite !== null && hooked.cpuMs !== null && hooked.lag ? (hooked.cpuMs - baseline.cpuMsPerWrite * hooked.writes.requests) / hooked.lag.deliveries : null;
        pairs.push({ name: shape.name, baseline, hooked, cpuMsPerDelivery });
      }
    } finally {
      load.close();
      await service.stop();
    }
  } finally {
    await receiver.close();
    await clean();
    await db.close();
  }
  return { users: USERS, rate: RATE, seconds: SECONDS, burst: BURST, pairs };
}

const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const lagText = (l: Lag | null) => (l ? `p50 ${ms(l.p50)}, p99 ${ms(l.p99)}, max ${ms(l.max)}` : 'n/a');

const cpuText = (v: number | null) => (v === null ? 'n/a' : v.toFixed(2));

export function printWebhooks(b: WebhookBench): void {
  console.log(`\nwebhook delivery (services mode: PostgreSQL + Redis; ${b.users} users, one subscription, receiver on loopback)`);
  for (const p of b.pairs) {
    const { baseline: base, hooked: h } = p;
    console.log(`  ${p.name}: writes ${h.writes.requestsPerSecond.toFixed(1)}/s p50 ${ms(h.writes.p50)} p99 ${ms(h.writes.p99)} (without the webhook ${base.writes.requestsPerSecond.toFixed(1)}/s p50 ${ms(base.writes.p50)} p99 ${ms(base.writes.p99)})`);
    console.log(`    lag ${lagText(h.lag)}; ${h.deliveriesPerSecond?.toFixed(0) ?? 'n/a'} deliveries/s; CPU per write ${cpuText(h.cpuMsPerWrite)} ms (without ${cpuText(base.cpuMsPerWrite)} ms), per delivery ${cpuText(p.cpuMsPerDelivery)} ms`);
  }
}

export function webhooksSection(b: WebhookBench): Section {
  return section(
    'Webhook delivery (services mode: PostgreSQL and Redis)',
    `History writes (\`POST /watch-history\`, each a new entry) from ${b.users} users who granted one app, whose one subscription to \`history\` posts to a receiver on loopback answering 204; each load first without the subscription (the baseline), then with it. Lag is the receiver's receipt less the moment the write's answer came back (negative when the message beat the answer). CPU is the service's and its PostgreSQL backends' until the last message arrived; per delivery, the run's CPU less its baseline's per write, over the messages.`,
    {
      measures: b.pairs.map((p) => ({ label: p.name, unit: 'writes/s', figures: p.hooked.writes, baseline: { label: 'no webhook', figures: p.baseline.writes } })),
      tables: [
        {
          caption: 'Delivery lag, deliveries and CPU (service + PostgreSQL)',
          header: ['load', 'messages', 'lag p50', 'lag p99', 'lag max', 'deliveries/s', 'CPU ms per write', 'without webhook', 'CPU ms per delivery'],
          rows: b.pairs.map((p) => [
            p.name,
            String(p.hooked.lag?.deliveries ?? '-'),
            p.hooked.lag ? ms(p.hooked.lag.p50) : '-',
            p.hooked.lag ? ms(p.hooked.lag.p99) : '-',
            p.hooked.lag ? ms(p.hooked.lag.max) : '-',
            p.hooked.deliveriesPerSecond?.toFixed(0) ?? '-',
            cpuText(p.hooked.cpuMsPerWrite),
            cpuText(p.baseline.cpuMsPerWrite),
            cpuText(p.cpuMsPerDelivery),
          ]),
        },
      ],
    },
  );
}

if (import.meta.main) printWebhooks(await benchWebhooks());
