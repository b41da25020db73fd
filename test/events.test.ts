// GET /playback/events through a real EventSource client (the `eventsource` package): named events with
// ids in order, heartbeats, replay after a reconnect with Last-Event-ID, tickets for clients that cannot
// send headers, errors in the envelope; and, in services mode, delivery across two instances on one Redis.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventSource, type FetchLike } from 'eventsource';
import { query } from '../src/core/db/sql.ts';
import { eventBusOf } from '../src/core/events/registry.ts';
import { SSE_TIMING } from '../src/core/events/live-stream.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

const DEFAULT_TIMING = { ...SSE_TIMING };
const EVENT_NAMES = ['playback.start', 'playback.pause', 'playback.resume', 'playback.progress', 'playback.stop', 'continue_watching.updated', 'continue_watching.removed'];

let app: TestApp;
let alice: Member;
const open: EventSource[] = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'alice_sse', ['playback:write', 'playback:read', 'events:read']);
});
afterEach(() => {
  for (const es of open.splice(0)) es.close();
  Object.assign(SSE_TIMING, DEFAULT_TIMING);
});
afterAll(() => app?.stop());

type Received = { id: string; name: string; data: Record<string, unknown> };

/** A real EventSource on `target`'s stream; `beforeFetch` runs before each (re)connection. */
function connect(target: TestApp, opts: { token?: string; query?: string; beforeFetch?: (attempt: number, headers: Record<string, string>) => Promise<void> } = {}) {
  const received: Received[] = [];
  let attempt = 0;
  const withAuth: FetchLike = async (url, init) => {
    const headers = { ...(init.headers as Record<string, string>), ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) };
    await opts.beforeFetch?.(++attempt, headers);
    return fetch(url, { ...init, headers });
  };
  const es = new EventSource(`${target.url}/api/platform/v1/playback/events${opts.query ?? ''}`, { fetch: withAuth });
  open.push(es);
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (e) => received.push({ id: e.lastEventId, name, data: JSON.parse(e.data) as Record<string, unknown> }));
  }
  const opened = new Promise<void>((resolve, reject) => {
    es.addEventListener('open', () => resolve(), { once: true });
    es.addEventListener('error', (e) => reject(new Error(`stream error ${String((e as { code?: number }).code)}`)), { once: true });
  });
  return { es, received, opened };
}

let clock = Date.now() - 60 * 60 * 1000;
let seq = 0;
const play = (target: TestApp, token: string, action: string, over: Record<string, unknown> = {}) =>
  platform(target, token, 'POST', `/playback/${action}`, {
    event_id: `sse-${++seq}`,
    event_created_at: (clock += 1000),
    media_type: 'movie',
    title: 'Spirited Away',
    movie_db_id: SPIRITED_AWAY,
    playback_session_id: 'sse-session',
    ...over,
  });

const raw = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}/api/platform/v1${path}`, { headers });
async function answer(res: Response) {
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('GET /playback/events', () => {
  it('streams named events with increasing ids, in order, in the documented shapes', async () => {
    const { received, opened } = connect(app, { token: alice.token });
    await opened;
    await play(app, alice.token, 'start', { progress: 0, playback_session_id: 'order' });
    await play(app, alice.token, 'progress', { progress: 0.2, duration_seconds: 1000, playback_session_id: 'order' });
    await play(app, alice.token, 'pause', { progress: 0.25, playback_session_id: 'order' });
    await until('five events', () => received.length >= 5);
    expect(received.map((e) => e.name)).toEqual(['playback.start', 'playback.progress', 'continue_watching.updated', 'playback.pause', 'continue_watching.updated']);
    const ids = received.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(received[1]!.data).toEqual({
      playback_session_id: 'order',
      state: 'playing',
      watched: false,
      media_type: 'movie',
      movie_db_id: SPIRITED_AWAY,
      punchplay_id: `movie-${SPIRITED_AWAY}`,
      title: 'Spirited Away',
      season: null,
      episode: null,
      episode_end: null,
      progress: 0.2,
      position_seconds: 200,
      duration_seconds: 1000,
      event_created_at: expect.any(Number),
      device_id: null,
    });
    const listed = (await platform(app, alice.token, 'GET', '/me/continue-watching')).body.items as unknown[];
    expect(received[4]!.data).toEqual(listed[0]);
  });

  it('sends continue_watching.removed when an entry is dismissed, and nothing for ignored events', async () => {
    const { received, opened } = connect(app, { token: alice.token });
    await opened;
    const [entry] = (await platform(app, alice.token, 'GET', '/me/continue-watching')).body.items as Array<{ id: number }>;
    expect((await play(app, alice.token, 'stop', { progress: 0.1, playback_session_id: 'order', event_created_at: 1_000_000_000_000 })).body.ignored).toBe('stale_event');
    expect((await platform(app, alice.token, 'DELETE', `/me/continue-watching/${entry!.id}`)).status).toBe(200);
    await until('the removal', () => received.length >= 1);
    expect(received).toEqual([{ id: expect.any(String), name: 'continue_watching.removed', data: { id: entry!.id } }]);
  });

  it('sends heartbeat comments', async () => {
    SSE_TIMING.heartbeatMs = 50;
    const controller = new AbortController();
    const res = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${alice.token}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text.startsWith('retry: ')).toBe(true);
  });

  it('a client reconnecting with Last-Event-ID gets the events it missed, once, then live ones', async () => {
    SSE_TIMING.maxStreamMs = 800; // the server ends the stream; EventSource reconnects by itself
    SSE_TIMING.retryMs = 50;
    let releaseReconnect = () => {};
    const gate = new Promise<void>((r) => (releaseReconnect = r));
    let reconnectedWith: string | undefined;
    let reconnecting = false;
    const { received, opened } = connect(app, {
      token: alice.token,
      beforeFetch: async (attempt, headers) => {
        if (attempt < 2) return;
        reconnecting = true;
        reconnectedWith = headers['Last-Event-ID'] ?? headers['last-event-id'];
        await gate;
      },
    });
    await opened;
    await play(app, alice.token, 'start', { playback_session_id: 'reconnect' });
    await until('the first event', () => received.length === 1);
    await until('the reconnection', () => reconnecting);
    SSE_TIMING.maxStreamMs = DEFAULT_TIMING.maxStreamMs;
    // Missed while disconnected:
    await play(app, alice.token, 'pause', { playback_session_id: 'reconnect' });
    await play(app, alice.token, 'resume', { playback_session_id: 'reconnect' });
    releaseReconnect();
    await until('the replayed events', () => received.length === 3);
    expect(reconnectedWith).toBe(received[0]!.id);
    // (Toy Story: Spirited Away's entry was dismissed above, and these events are older than that.)
    await play(app, alice.token, 'stop', { playback_session_id: 'reconnect', progress: 0.5, movie_db_id: 862, title: 'Toy Story' });
    await until('live events after the replay', () => received.length === 5);
    expect(received.map((e) => e.name)).toEqual(['playback.start', 'playback.pause', 'playback.resume', 'playback.stop', 'continue_watching.updated']);
  });

  it('replays only events inside the 10-minute window', async () => {
    const bob = await member(app, 'bob_sse', ['playback:write', 'events:read']);
    await play(app, bob.token, 'start', { playback_session_id: 'window' });
    await play(app, bob.token, 'pause', { playback_session_id: 'window' });
    const rows = await query<{ id: string }>(app.db.orm.em.fork(), { text: `select id from stream_event where user_id = $1 order by id`, params: [bob.userId] });
    await query(app.db.orm.em.fork(), { text: `update stream_event set created_at = now() - interval '11 minutes' where id = $1`, params: [rows[0]!.id] });
    const { received, opened } = connect(app, { token: bob.token, beforeFetch: async (_n, headers) => void (headers['Last-Event-ID'] = '0') });
    await opened;
    await until('the replay', () => received.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(received.map((e) => e.name)).toEqual(['playback.pause']);
  });

  it("never sends another user's events", async () => {
    const carol = await member(app, 'carol_sse', ['playback:write', 'events:read']);
    const mine = connect(app, { token: carol.token });
    const theirs = connect(app, { token: alice.token });
    await Promise.all([mine.opened, theirs.opened]);
    await play(app, alice.token, 'start', { playback_session_id: 'private' });
    await play(app, carol.token, 'start', { playback_session_id: 'private' });
    await until('one event each', () => mine.received.length === 1 && theirs.received.length === 1);
    expect(mine.received[0]!.data.playback_session_id).toBe('private');
    expect(Number(mine.received[0]!.id)).toBeGreaterThan(Number(theirs.received[0]!.id));
  });

  it('a client that goes away leaves no listener behind', async () => {
    const bus = eventBusOf(app.db.orm.em.fork())!;
    await until('earlier streams to close', () => bus.listenerCount() === 0);
    const { es, opened } = connect(app, { token: alice.token });
    await opened;
    expect(bus.listenerCount()).toBe(1);
    es.close();
    await until('the listener to go', () => bus.listenerCount() === 0);
  });

  it('errors in the envelope: 401 without credentials, 403 without events:read, 400 for bad input', async () => {
    expectError(await answer(await raw('/playback/events')), 401, 'invalid_token');
    expectError(await answer(await raw('/playback/events', { authorization: 'Bearer nope' })), 401, 'invalid_token');
    const noEvents = await tokenWith(app, alice, ['playback:read']);
    expectError(await answer(await raw('/playback/events', { authorization: `Bearer ${noEvents}` })), 403, 'insufficient_scope', { required_scope: 'events:read' });
    expectError(await answer(await raw('/playback/events?since=1', { authorization: `Bearer ${alice.token}` })), 400, 'invalid_request');
    expectError(await answer(await raw('/playback/events', { authorization: `Bearer ${alice.token}`, 'last-event-id': 'abc' })), 400, 'invalid_request');
  });
});

describe('OpenAPI', () => {
  it('documents the stream, its limits, the ticket, and the playback state table', async () => {
    const doc = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const stream = doc.paths['/playback/events']!.get!;
    expect((stream['x-rate-limits'] as Array<{ bucket: string }>).map((l) => l.bucket)).toEqual(expect.arrayContaining(['events-token', 'events-user']));
    expect(Object.keys(stream.responses as object)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429', '500']));
    expect(doc.paths['/playback/events/ticket']!.post).toBeDefined();
    const event = doc.paths['/playback/{action}']!.post!;
    expect(event.description).toContain('| none | `pause`, `resume` | none | 409 `playback_state_conflict`');
    expect((event['x-rate-limits'] as Array<{ bucket: string }>).map((l) => l.bucket)).toContain('playback');
    expect(Object.keys(event.responses as object)).toEqual(expect.arrayContaining(['200', '400', '409', '422', '500']));
  });
});

describe('tickets for EventSource clients without headers', () => {
  it('POST /playback/events/ticket gives a single-use ticket that opens the stream', async () => {
    const res = await platform(app, alice.token, 'POST', '/playback/events/ticket', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ticket: expect.stringMatching(/^evt_/), expires_in: 60 });
    const ticket = res.body.ticket as string;
    const { received, opened } = connect(app, { query: `?ticket=${ticket}` });
    await opened;
    await play(app, alice.token, 'start', { playback_session_id: 'ticket' });
    await until('the event', () => received.length === 1);
    expectError(await answer(await raw(`/playback/events?ticket=${ticket}`)), 401, 'invalid_token');
  });

  it('rejects unknown tickets, a ticket with a header, and tokens without events:read', async () => {
    expectError(await answer(await raw('/playback/events?ticket=evt_unknown')), 401, 'invalid_token');
    const { ticket } = (await platform(app, alice.token, 'POST', '/playback/events/ticket', {})).body as { ticket: string };
    expectError(await answer(await raw(`/playback/events?ticket=${ticket}`, { authorization: `Bearer ${alice.token}` })), 400, 'invalid_request');
    const noEvents = await tokenWith(app, alice, ['playback:write']);
    expectError(await platform(app, noEvents, 'POST', '/playback/events/ticket', {}), 403, 'insufficient_scope', { required_scope: 'events:read' });
    expectError(await platform(app, null, 'POST', '/playback/events/ticket', {}), 401, 'invalid_token');
  });

  it('an expired ticket opens nothing', async () => {
    const { ticket } = (await platform(app, alice.token, 'POST', '/playback/events/ticket', {})).body as { ticket: string };
    await query(app.db.orm.em.fork(), { text: `update stream_ticket set expires_at = now() - interval '1 second'`, params: [] });
    expectError(await answer(await raw(`/playback/events?ticket=${ticket}`)), 401, 'invalid_token');
  });
});

describe.skipIf(!servicesMode || !process.env.REDIS_URL)('two instances on one Redis (services mode)', () => {
  it('an event posted to one instance reaches a client connected to the other', async () => {
    const prefix = `sse_${process.pid}_${Date.now()}`;
    const one = await startTestApp({ REDIS_KEY_PREFIX: prefix }, { sameDatabaseAs: app });
    const two = await startTestApp({ REDIS_KEY_PREFIX: prefix }, { sameDatabaseAs: app });
    try {
      const { received, opened } = connect(two, { token: alice.token });
      await opened;
      await play(one, alice.token, 'start', { playback_session_id: 'fleet', progress: 0.3, movie_db_id: 862, title: 'Toy Story' });
      await until('the events from the other instance', () => received.length === 2);
      expect(received.map((e) => e.name)).toEqual(['playback.start', 'continue_watching.updated']);
    } finally {
      for (const es of open.splice(0)) es.close();
      await one.stop();
      await two.stop();
    }
  });
});
