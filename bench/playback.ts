// Playback in services mode (PostgreSQL + Redis, the real process): playback events per second across
// many users through POST /playback/progress (autocannon), and the delivery latency of server-sent
// events from the moment a POST is sent to the moment each of 1,000 connected clients has the event.
import http from 'node:http';
import autocannon from 'autocannon';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { openDatabase } from '../src/core/db/orm.ts';
import { benchDatabaseUrl, type Figures, formatRow, percentile, prepareCatalog, startService, tempDataDir, tokenIssuer } from './lib.ts';
import { atMost, section, type Section } from './report.ts';

const USERS = Number(process.env.BENCH_PLAYBACK_USERS ?? 100);
const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SSE_EVENTS = Number(process.env.BENCH_SSE_EVENTS ?? 300);
const SSE_SENDERS = 4;
const SCOPES = 'playback:write events:read';
const MOVIE = 129;

export type PlaybackBench = { events: Figures; users: number; sse: { clients: number; events: number; deliveries: number; p50: number; p99: number; max: number } };

/** USERS users of one app, each with an access token issued by the service's own provider. */
async function makeUsers(databaseUrl: string): Promise<string[]> {
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  try {
    const em = db.orm.em.fork();
    const suffix = Math.random().toString(36).slice(2, 8);
    const app = await createApp(em, { name: 'Bench player', redirectUris: ['http://127.0.0.1:1/cb'], scopes: SCOPES.split(' '), confidential: false, official: false });
    const issue = await tokenIssuer(db, databaseUrl);
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const user = await createUser(em, { username: `pb_${suffix}_${i}`, password: 'bench-password-1' });
      tokens.push(await issue(user.id, app.client_id, SCOPES));
    }
    return tokens;
  } finally {
    await db.close();
  }
}

let eventSeq = 0;
function progressBody(user: number, at: number): string {
  eventSeq++;
  return JSON.stringify({
    event_id: `bench-${process.pid}-${eventSeq}`,
    event_created_at: at,
    media_type: 'movie',
    title: 'Spirited Away',
    movie_db_id: MOVIE,
    playback_session_id: `bench-${process.pid}-${user}`,
    progress: (eventSeq % 700) / 1000 + 0.01,
    duration_seconds: 7500,
  });
}

/** POST /playback/progress from CONNECTIONS connections, each request for the next user in turn. */
async function eventsPerSecond(url: string, tokens: string[]): Promise<Figures> {
  let n = 0;
  const base = Date.now() - 60 * 60 * 1000;
  const opts = {
    url: `${url}/api/platform/v1/playback/progress`,
    connections: CONNECTIONS,
    method: 'POST' as const,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const user = n++ % tokens.length;
          return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[user]}` }, body: progressBody(user, base + n) };
        },
      },
    ],
  };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: SECONDS });
  if (r.non2xx || r.errors) throw new Error(`playback answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

type Client = { user: number; request: http.ClientRequest };

/** Opens one SSE stream; `onProgress` gets each playback.progress event's event_created_at. */
function openStream(url: string, token: string, onProgress: (eventCreatedAt: number) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      let connected = false;
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!connected && block.includes(': connected')) {
            connected = true;
            resolve(req);
          }
          if (!block.includes('event: playback.progress')) continue;
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (data) onProgress((JSON.parse(data.slice(6)) as { event_created_at: number }).event_created_at);
        }
      });
    });
    req.on('error', reject);
  });
}

/** CLIENTS streams spread over the users; SSE_EVENTS progress events; latency from each POST's send to each delivery. */
async function deliveryLatency(url: string, tokens: string[]) {
  const sentAt = new Map<number, bigint>();
  const latencies: number[] = [];
  const clients: Client[] = [];
  const onProgress = (eventCreatedAt: number) => {
    const t = sentAt.get(eventCreatedAt);
    if (t !== undefined) latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  };
  for (let i = 0; i < CLIENTS; i += 50) {
    const batch = Array.from({ length: Math.min(50, CLIENTS - i) }, (_, k) => (i + k) % tokens.length);
    const opened = await Promise.all(batch.map((user) => openStream(url, tokens[user]!, onProgress)));
    opened.forEach((request, k) => clients.push({ user: batch[k]!, request }));
  }
  const perUser = new Map<number, number>();
  for (const c of clients) perUser.set(c.user, (perUser.get(c.user) ?? 0) + 1);
  let expected = 0;
  let next = 0;
  const base = Date.now() - 30 * 60 * 1000;
  await Promise.all(
    Array.from({ length: SSE_SENDERS }, async () => {
      while (next < SSE_EVENTS) {
        const i = next++;
        const user = i % tokens.length;
        const at = base + i;
        expected += perUser.get(user) ?? 0;
        sentAt.set(at, process.hrtime.bigint());
        const res = await fetch(`${url}/api/platform/v1/playback/progress`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[user]}` },
          body: progressBody(user, at),
        });
        if (res.status !== 200) throw new Error(`playback answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const deadline = Date.now() + 10_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const c of clients) c.request.destroy();
  if (latencies.length < expected) throw new Error(`only ${latencies.length} of ${expected} deliveries arrived`);
  latencies.sort((a, b) => a - b);
  return { clients: clients.length, events: SSE_EVENTS, deliveries: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! };
}

export async function benchPlayback(): Promise<PlaybackBench> {
  const databaseUrl = benchDatabaseUrl();
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const tokens = await makeUsers(databaseUrl);
  const service = await startService({ DATABASE_URL: databaseUrl, REDIS_URL: process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `bench_${process.pid}` });
  try {
    const events = await eventsPerSecond(service.url, tokens);
    const sse = await deliveryLatency(service.url, tokens);
    return { events, users: tokens.length, sse };
  } finally {
    await service.stop();
  }
}

export function printPlayback(b: PlaybackBench): void {
  console.log(`\nplayback (services mode: PostgreSQL + Redis)`);
  console.log(formatRow(`  POST /playback/progress, ${b.users} users, ${CONNECTIONS} conns`, b.events));
  console.log(
    `  SSE delivery, ${b.sse.clients} clients, ${b.sse.events} events (${b.sse.deliveries} deliveries): p50 ${b.sse.p50.toFixed(2)} ms, p99 ${b.sse.p99.toFixed(2)} ms, max ${b.sse.max.toFixed(2)} ms (from POST sent to client received)`,
  );
}

export function playbackSection(b: PlaybackBench): Section {
  return section(
    'Playback (services mode: PostgreSQL and Redis)',
    `\`POST /playback/progress\` across ${b.users} users at ${CONNECTIONS} connections, and server-sent event delivery to ${b.sse.clients.toLocaleString('en')} connected clients from the moment a POST is sent to the moment each client has the event.`,
    {
      measures: [{ label: `POST /playback/progress, ${b.users} users`, unit: 'events/s', figures: b.events }],
      values: [{ label: `SSE delivery, ${b.sse.clients} clients, ${b.sse.events} events (${b.sse.deliveries.toLocaleString('en')} deliveries)`, value: `p50 ${b.sse.p50.toFixed(2)} ms, p99 ${b.sse.p99.toFixed(2)} ms, max ${b.sse.max.toFixed(2)} ms` }],
      targets: [atMost(19, `SSE delivery p99 at most 50 ms with ${b.sse.clients.toLocaleString('en')} clients`, b.sse.p99, 50)],
    },
  );
}

if (import.meta.main) printPlayback(await benchPlayback());
