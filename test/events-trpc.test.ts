// The live events as the /trpc subscription `platform.playback.events`, through the client package's
// createClient (tRPC's httpSubscriptionLink over the `eventsource` package): the same events and ids as
// GET /playback/events, the replay after `lastEventId`, tRPC's ping as the heartbeat, the reconnection at
// the stream's lifetime, the scope and input errors with the service's codes, the connection-attempt
// buckets shared with the REST stream, and the end of a subscription whose token is revoked (then the
// refresh and a new connection that resumes where the old one stopped).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, isServiceError, type Client, type GetToken, type ServiceError } from '../packages/client/src/index.ts';
import { eventBusOf } from '../src/core/events/registry.ts';
import { SSE_TIMING } from '../src/core/events/live-stream.ts';
import type { RedisEventBus } from '../src/core/events/bus.ts';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { RedisServer } from './helpers/redis-server.ts';
import { postForm } from './helpers/oauth.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

const DEFAULT_TIMING = { ...SSE_TIMING };

let app: TestApp;
const open: Array<{ stop(): void }> = [];

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  await seedCatalog(app, { shows: 1 });
});
afterEach(() => {
  for (const s of open.splice(0)) s.stop();
  Object.assign(SSE_TIMING, DEFAULT_TIMING);
});
afterAll(() => app?.stop());

type Received = { id: string; name: string; data: Record<string, unknown> };

/** A subscription through the client package: what came, in order, and how it ended. */
function subscribe(client: Client, input?: { lastEventId: string }) {
  const got: Received[] = [];
  const state = { error: null as ServiceError | null, states: [] as string[], retried: [] as Array<number | undefined> };
  const subscription = client.platform.playback.events.subscribe(input, {
    onData: ({ id, data }) => got.push({ id, ...data }),
    onError: (err) => (state.error = err),
    onConnectionStateChange: (s) => {
      state.states.push(s.state);
      if (s.error && isServiceError(s.error)) state.retried.push(s.error.data?.httpStatus);
    },
  });
  const handle = { got, state, stop: () => subscription.unsubscribe() };
  open.push(handle);
  return handle;
}

const tokenClient = (token: string | undefined, target = app) => createClient({ baseUrl: target.url, token });

let seq = 0;
const play = async (token: string, action: string, session = 'trpc', target = app) => {
  const res = await platform(target, token, 'POST', `/playback/${action}`, {
    event_id: `trpc-${++seq}`,
    event_created_at: Date.now() - 60_000 + seq,
    media_type: 'movie',
    title: 'Spirited Away',
    movie_db_id: SPIRITED_AWAY,
    playback_session_id: session,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** GET /playback/events read as text until `marker`. */
async function restStream(token: string) {
  const controller = new AbortController();
  const res = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  open.push({ stop: () => controller.abort() });
  return { text: () => text };
}

/** A user with a token for the subscription and another token (another client) that writes playback. */
async function viewer(name: string): Promise<Member & { writer: string }> {
  const m = await member(app, name, ['events:read']);
  return { ...m, writer: await tokenWith(app, m, ['playback:write']) };
}

describe('platform.playback.events over /trpc', () => {
  it('sends the events another client writes, with the ids and data GET /playback/events sends', async () => {
    const v = await viewer('trpc_live');
    const rest = await restStream(v.token);
    const sub = subscribe(tokenClient(v.token));
    await until('the stream start', () => sub.got.length === 1 && rest.text().includes(': connected'));
    // A new client first learns where its stream starts: the REST stream's `id:` line (no event yet: 0).
    expect(sub.got[0]).toEqual({ id: '0', name: 'stream.open', data: {} });
    expect(rest.text()).toContain('id: 0\n');
    await play(v.writer, 'start');
    await until('the event on both', () => sub.got.length === 2 && rest.text().includes('event: playback.start'));
    const event = sub.got[1]!;
    expect(event).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'playback.start',
      data: expect.objectContaining({ playback_session_id: 'trpc', state: 'playing', movie_db_id: SPIRITED_AWAY, title: 'Spirited Away' }),
    });
    expect(rest.text()).toContain(`id: ${event.id}\nevent: playback.start\ndata: ${JSON.stringify(event.data)}\n\n`);
    expect(sub.state.error).toBeNull();
  });

  it('replays the events after lastEventId once, then live ones', async () => {
    const v = await viewer('trpc_replay');
    await play(v.writer, 'start', 'replay');
    const first = subscribe(tokenClient(v.token));
    await until('the stream start', () => first.got.length === 1);
    const start = first.got[0]!.id;
    first.stop();
    await play(v.writer, 'pause', 'replay');
    await play(v.writer, 'resume', 'replay');
    const again = subscribe(tokenClient(v.token), { lastEventId: start });
    await until('the missed events', () => again.got.length === 2);
    await play(v.writer, 'stop', 'replay');
    await until('the live event', () => again.got.length === 3);
    expect(again.got.map((e) => e.name)).toEqual(['playback.pause', 'playback.resume', 'playback.stop']);
    const ids = again.got.map((e) => BigInt(e.id));
    expect(ids.every((id, i) => id > (i === 0 ? BigInt(start) : ids[i - 1]!))).toBe(true);
  });

  it("pings as the stream's heartbeat, and reconnects by itself at the stream's lifetime, resuming from the last id", async () => {
    SSE_TIMING.heartbeatMs = 50;
    const v = await viewer('trpc_ping');
    const controller = new AbortController();
    const res = await fetch(`${app.url}/trpc/platform.playback.events`, { headers: { authorization: `Bearer ${v.token}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: ping\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();

    SSE_TIMING.maxStreamMs = 500;
    const sub = subscribe(tokenClient(v.token));
    await until('the stream start', () => sub.got.length === 1);
    // The response ended at its lifetime: the client reconnected with the last id it had (the start).
    await until('a reconnection', () => sub.state.states.filter((s) => s === 'pending').length >= 2);
    SSE_TIMING.maxStreamMs = DEFAULT_TIMING.maxStreamMs;
    await play(v.writer, 'start', 'lifetime');
    await until('the event after the reconnection', () => sub.got.some((e) => e.name === 'playback.start'));
    expect(sub.got.map((e) => e.name).filter((n) => n === 'stream.open')).toEqual(['stream.open']);
    expect(sub.state.error).toBeNull();
  });

  it('answers with the service codes: insufficient_scope, invalid_token, invalid_request', async () => {
    const v = await viewer('trpc_errors');
    const errorOf = async (client: Client, input?: { lastEventId: string }) => {
      const sub = subscribe(client, input);
      await until('the error', () => sub.state.error !== null);
      expect(sub.got).toEqual([]);
      const err = sub.state.error;
      return isServiceError(err) ? { error: err.data?.error, status: err.data?.httpStatus, required_scope: (err.data as { required_scope?: string } | null)?.required_scope } : err;
    };
    expect(await errorOf(tokenClient(v.writer))).toEqual({ error: 'insufficient_scope', status: 403, required_scope: 'events:read' });
    expect(await errorOf(tokenClient(undefined))).toEqual({ error: 'invalid_token', status: 401, required_scope: undefined });
    expect(await errorOf(tokenClient('not-a-token'))).toEqual({ error: 'invalid_token', status: 401, required_scope: undefined });
    expect(await errorOf(tokenClient(v.token), { lastEventId: 'abc' })).toEqual({ error: 'invalid_request', status: 400, required_scope: undefined });
  });

  it('counts connection attempts in the buckets of GET /playback/events: 20 a minute per token', async () => {
    const v = await viewer('trpc_limits');
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${v.token}` } });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    for (let i = 0; i < 10; i++) {
      const sub = subscribe(tokenClient(v.token));
      await until(`subscription ${i + 1}`, () => sub.got.length === 1 || sub.state.error !== null);
      expect(sub.state.error).toBeNull();
      sub.stop();
    }
    const refused = subscribe(tokenClient(v.token));
    await until('the refusal', () => refused.state.error !== null);
    expect(refused.state.error?.data).toMatchObject({ error: 'rate_limited', httpStatus: 429, retry_after: expect.any(Number) });
    expect(refused.state.error?.message).toContain('events-token');
    const rest = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${v.token}` } });
    expect(rest.status).toBe(429);
  });

  it('a client that goes away leaves no listener behind', async () => {
    const bus = eventBusOf(app.db.orm.em.fork())!;
    for (const s of open.splice(0)) s.stop();
    await until('earlier streams to close', () => bus.listenerCount() === 0);
    const v = await viewer('trpc_gone');
    const sub = subscribe(tokenClient(v.token));
    await until('the stream start', () => sub.got.length === 1);
    expect(bus.listenerCount()).toBe(1);
    sub.stop();
    await until('the listener to go', () => bus.listenerCount() === 0);
  });
});

describe('a revoked token ends the subscription', () => {
  it('with invalid_token for a fixed token; a refreshing client resumes after the last event it had', async () => {
    const v = await viewer('trpc_revoke');
    const fixed = subscribe(tokenClient(v.token));
    const spare = await tokenWith(app, v, ['events:read']);
    const asked: boolean[] = [];
    let current = await tokenWith(app, v, ['events:read']);
    const getToken: GetToken = ({ forceRefresh }) => {
      asked.push(forceRefresh);
      if (forceRefresh) current = spare;
      return current;
    };
    const refreshing = subscribe(createClient({ baseUrl: app.url, getToken }));
    await until('both streams open', () => fixed.got.length === 1 && refreshing.got.length === 1);
    await play(v.writer, 'start', 'revoke');
    await until('the event on both', () => fixed.got.length === 2 && refreshing.got.length === 2);

    for (const token of [v.token, current]) {
      const answer = await postForm(`${app.url}/api/platform/v1/oauth/revoke`, { client_id: v.clientId, token });
      expect(answer.status).toBe(200);
    }
    await until('the fixed subscription to end', () => fixed.state.error !== null, 5_000);
    expect(fixed.state.error?.data).toMatchObject({ error: 'invalid_token', httpStatus: 401 });

    // The refreshing client got a new token and a new connection, which resumes after its last event.
    await until('the refresh', () => asked.includes(true));
    await play(v.writer, 'pause', 'revoke');
    await until('the event after the refresh', () => refreshing.got.some((e) => e.name === 'playback.pause'));
    expect(refreshing.got.map((e) => e.name)).toEqual(['stream.open', 'playback.start', 'playback.pause']);
    expect(refreshing.state.error).toBeNull();
    expect(fixed.got.map((e) => e.name)).toEqual(['stream.open', 'playback.start']);
  });
});

describe.skipIf(!servicesMode)('through Redis faults (services mode)', () => {
  let redis: RedisServer;
  let faulty: TestApp;
  const delivering = () => (eventBusOf(faulty.db.orm.em) as RedisEventBus).delivering;

  beforeAll(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
    faulty = await startTestApp({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: `trpcfaults${process.pid}` }, { sameDatabaseAs: app });
  });
  afterAll(async () => {
    await faulty?.stop();
    await redis?.kill();
  });

  it('a subscription cut by a Redis crash is refused with a retryable 503 while Redis is away, then resumes with every event once', async () => {
    const v = await viewer('trpc_faults');
    const sub = subscribe(tokenClient(v.token, faulty));
    await until('the stream start', () => sub.got.length === 1);
    await play(v.writer, 'start', 'faults', faulty);
    await until('the first event', () => sub.got.length === 2);
    await redis.kill();
    await until('the instance to see the crash', () => !delivering(), 5_000);
    // Written while live delivery is down: stored, and replayed to the client once it is back.
    await play(v.writer, 'pause', 'faults', faulty);
    await until('a refused reconnection', () => sub.state.retried.includes(503));
    await redis.start();
    await until('delivery again', () => delivering());
    await until('the missed event', () => sub.got.length === 3);
    await play(v.writer, 'resume', 'faults', faulty);
    await until('the live event', () => sub.got.length === 4);
    expect(sub.got.map((e) => e.name)).toEqual(['stream.open', 'playback.start', 'playback.pause', 'playback.resume']);
    expect(new Set(sub.got.map((e) => e.id)).size).toBe(4);
    expect(sub.state.error).toBeNull();
  });
});
