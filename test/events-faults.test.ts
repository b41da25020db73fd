// Live events through Redis faults: two instances on one PostgreSQL and on a redis-server this file
// owns, which it hangs (SIGSTOP), resumes, kills and starts again while playback events are written
// through both instances. Each connected client reconnects the way an EventSource does (after the
// stream ends, with Last-Event-ID) and must get every stored event exactly once, in id order, live or
// by replay. A stream never opens as an empty 200 while Redis is away: 503 in the envelope, with
// Retry-After and the limit headers, counted in the metrics and the access log. Services mode only.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RedisEventBus } from '../src/core/events/bus.ts';
import { eventBusOf } from '../src/core/events/registry.ts';
import { query } from '../src/core/db/sql.ts';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { memoryLog } from './helpers/memory-log.ts';
import { RedisServer } from './helpers/redis-server.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

const METRICS_TOKEN = 'faults-metrics-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Clients still reading: each test stops its own, also when it fails (workers are reused across files). */
const running = new Set<Client>();
afterEach(() => Promise.all([...running].map((c) => c.stop())));

/**
 * A client that behaves as EventSource does: it reads the stream, remembers the last id (id-only
 * blocks included), and when the stream ends or cannot open, waits (the server's `retry:` or
 * Retry-After, at most 1 s here) and reconnects with Last-Event-ID. Every event id it got, in order.
 */
class Client {
  readonly ids: string[] = [];
  readonly statuses: number[] = [];
  connected = 0;
  #last: string | null = null;
  #stopped = false;
  readonly #done: Promise<void>;
  readonly #abort = new AbortController();

  readonly url: string;
  readonly token: string;

  constructor(url: string, token: string) {
    this.url = url;
    this.token = token;
    this.#done = this.#run();
    running.add(this);
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let waitMs = 1000;
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
        if (this.#last !== null) headers['last-event-id'] = this.#last;
        const res = await fetch(`${this.url}/api/platform/v1/playback/events`, { headers, signal: this.#abort.signal });
        this.statuses.push(res.status);
        if (res.status !== 200) {
          await res.body?.cancel();
          waitMs = Math.min(1000, Number(res.headers.get('retry-after') ?? 1) * 1000);
        } else {
          this.connected++;
          waitMs = await this.#read(res);
        }
      } catch {
        if (this.#stopped) return;
      }
      await sleep(waitMs);
    }
  }

  /** Reads one stream to its end; returns the reconnection delay it asked for (capped). */
  async #read(res: Response): Promise<number> {
    let retry = 1000;
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let id: string | null = null;
        let data = false;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          if (line.startsWith('data: ')) data = true;
          if (line.startsWith('retry: ')) retry = Math.min(1000, Number(line.slice(7)));
        }
        if (id !== null) this.#last = id;
        if (id !== null && data) this.ids.push(id);
      }
    }
    return retry;
  }

  async stop(): Promise<void> {
    running.delete(this);
    this.#stopped = true;
    this.#abort.abort();
    await this.#done;
  }
}

describe.skipIf(!servicesMode)('live events through Redis faults', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let viewer: Member;
  const aLog = memoryLog();

  beforeAll(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `faults${process.pid}`, RATE_LIMITS: 'on', METRICS_TOKEN };
    a = await startTestApp(env, { log: aLog.log });
    b = await startTestApp(env, { sameDatabaseAs: a });
    await seedCatalog(a, { shows: 1 });
    viewer = await member(a, 'fault_viewer', ['playback:write', 'events:read']);
  });

  afterAll(async () => {
    redis?.resume();
    await b?.stop();
    await a?.stop();
    await redis?.kill();
  });

  /** The ids of the viewer's stored events after `after`, in order. */
  const storedAfter = async (after: string) =>
    (await query<{ event_id: string }>(a.db.orm.em.fork(), { text: 'select id::text as event_id from stream_event where user_id = $1 and id > $2 order by id', params: [viewer.userId, after] })).map((r) => r.event_id);
  const newest = async () => (await query<{ id: string | null }>(a.db.orm.em.fork(), { text: 'select max(id)::text as id from stream_event', params: [] }))[0]!.id ?? '0';
  const delivering = (app: TestApp) => (eventBusOf(app.db.orm.em) as RedisEventBus).delivering;

  it('every stored event reaches each client exactly once, in order, through a hang and a crash of Redis', async () => {
    const start = await newest();
    // One client on each instance, each with a token of its own (the connection limits are per token).
    const clients = [new Client(a.url, await tokenWith(a, viewer, ['events:read'])), new Client(b.url, await tokenWith(a, viewer, ['events:read']))];
    await until('both streams open', () => clients.every((c) => c.connected === 1));

    // Playback progress through both instances, about 7 a second, until told to stop.
    let writing = true;
    let n = 0;
    const failures: number[] = [];
    const writer = (async () => {
      while (writing) {
        n++;
        const via = n % 2 ? b : a;
        const res = await platform(via, viewer.token, 'POST', '/playback/progress', {
          event_id: `fault-${n}`,
          event_created_at: Date.now(),
          media_type: 'movie',
          title: 'Spirited Away',
          movie_db_id: SPIRITED_AWAY,
          playback_session_id: 'faults',
          progress: Math.min(0.8, 0.01 + n * 0.005),
          duration_seconds: 6000,
        });
        if (res.status !== 200) failures.push(res.status);
        await sleep(150);
      }
    })();

    try {
      await sleep(1000);
      redis.pause();
      await until('both instances to see the hang', () => !delivering(a) && !delivering(b), 5_000);
      await sleep(3000);
      redis.resume();
      await until('delivery again after the hang', () => delivering(a) && delivering(b));
      // The hang ended every stream (delivery was in doubt); each client is back on a new one.
      // (More than once when a publish fails while Redis's connections come back: that is in doubt too.)
      await until('both clients back after the hang', () => clients.every((c) => c.connected >= 2));
      await sleep(1000);
      const beforeCrash = clients.map((c) => c.connected);
      await redis.kill();
      await until('both instances to see the crash', () => !delivering(a) && !delivering(b), 5_000);
      await sleep(1500);
      await redis.start();
      await until('delivery again after the restart', () => delivering(a) && delivering(b));
      await until('both clients back after the crash', () => clients.every((c, i) => c.connected > beforeCrash[i]!));
      await sleep(1500);
      // Enough events for the count below, however slowly a loaded machine writes them.
      await until('over 50 stored events', async () => (await storedAfter(start)).length > 50, 60_000, 250);
    } finally {
      writing = false;
      await writer.catch(() => {});
    }

    const stored = await storedAfter(start);
    expect(failures).toEqual([]);
    expect(stored.length).toBeGreaterThan(50);
    await until('every client to have every stored event', () => clients.every((c) => stored.every((id) => c.ids.includes(id))), 20_000);
    await Promise.all(clients.map((c) => c.stop()));
    for (const c of clients) {
      // Exactly once and in order: the ids a client got are the stored ones, as they are stored.
      expect(c.ids).toEqual(stored);
      // Streams ended at each fault; while Redis was away new ones were refused, never answered otherwise.
      expect(c.connected).toBeGreaterThanOrEqual(3);
      expect(c.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    }
  });

  it('a stream asked for while Redis is away is a 503 in the envelope, with Retry-After and the limit headers, logged and counted', async () => {
    const token = await tokenWith(a, viewer, ['events:read']);
    await redis.kill();
    await until('instance a to see Redis gone', () => !delivering(a), 5_000);
    try {
      const res = await fetch(`${a.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as Record<string, unknown>;
      expectError({ status: res.status, body, headers: res.headers }, 503, 'server_error', { retry_after: 2 });
      expect(body).toEqual({ error: 'server_error', message: 'Live events are unavailable right now; retry shortly', request_id: expect.stringMatching(/^req_/), retry_after: 2 });
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('20');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('19');
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      const logged = aLog.lines.filter((l) => l.msg === 'request' && l.request_id === body.request_id);
      expect(logged).toEqual([expect.objectContaining({ status: 503, route: 'GET /api/platform/v1/playback/events' })]);
      const metrics = await (await fetch(`${a.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      expect(metrics).toMatch(/http_request_duration_seconds_count\{route="\/api\/platform\/v1\/playback\/events",method="GET",status="503"\} [1-9]/);
    } finally {
      await redis.start();
    }
    await until('delivery again', () => delivering(a));
    const res = await fetch(`${a.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
