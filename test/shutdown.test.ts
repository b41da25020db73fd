// Graceful shutdown of a real process (`node src/main.ts`): under a steady stream of writes, SIGTERM
// closes the port at once, lets the requests in flight finish (with Connection: close), closes idle
// keep-alive connections, ends the event stream with a reconnect hint, and exits 0 in the grace period;
// every write answered 2xx is in the database. One write is provably in flight in both modes: its
// headers and half its body are sent before SIGTERM, the rest after. The child's sync hold
// (helpers/child-main.ts) holds each bulk write open before its commit ("sync batch held open"), so in
// services mode writes of the stream are in flight too (in embedded mode PGlite's pg_sleep blocks the
// whole process, signals included).
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { startTestApp } from './helpers/app.ts';
import { exited, startChildServer } from './helpers/child-server.ts';
import { servicesMode, type TestDatabase } from './helpers/db.ts';
import { member, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { newKey } from './helpers/sync-client.ts';
import { until } from './helpers/wait.ts';

let database: TestDatabase;
let user: Member;

beforeAll(async () => {
  // Migrate, seed and mint the token in-process, then free the database for the child process.
  const app = await startTestApp();
  database = app.database;
  await seedCatalog(app, { shows: 1 });
  user = await member(app, 'stopper', ['history:write', 'history:read', 'events:read']);
  await app.close();
});
afterAll(() => database?.cleanup());

type Write = { watchedAt: string; requestId?: string | null; status?: number; connection?: string | null; error?: string };

/** The error code of a new TCP connection to the port, or null when it connects. */
function connectError(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(null);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** A keep-alive connection that answered one request and is now idle; `closed` resolves when the server closes it. */
async function idleKeepAlive(port: number): Promise<{ closed: Promise<void> }> {
  const s = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
  let text = '';
  const answered = new Promise<void>((resolve) => s.on('data', (d: Buffer) => ((text += d.toString()), text.includes('"status":"ok"') && resolve())));
  s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  await answered;
  expect(text).toMatch(/^HTTP\/1\.1 200 /);
  expect(text.toLowerCase()).toContain('connection: keep-alive');
  return { closed };
}

/**
 * A write whose headers and first half of the body are sent now, on a connection that already
 * answered a request (so the server is reading it); `finish` sends the rest and reads the answer.
 */
async function halfSentWrite(port: number, token: string, watchedAt: string) {
  const s = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  let text = '';
  s.on('data', (d: Buffer) => (text += d.toString()));
  const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
  s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await until('the health check answer', () => text.includes('"status":"ok"'), 60_000);
  text = '';
  const body = JSON.stringify({ items: [{ client_item_id: 'half', movie_db_id: SPIRITED_AWAY, watched_at: watchedAt }] });
  const half = Math.floor(body.length / 2);
  s.write(
    `POST /api/platform/v1/sync/history HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: ${newKey()}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    finish: async () => {
      s.write(body.slice(half));
      // Connection: close: the server ends the connection after this answer.
      await closed;
      const [head = '', payload = ''] = text.split('\r\n\r\n');
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { statusLine: head.split('\r\n')[0], headers, body: JSON.parse(payload) as Record<string, unknown> };
    },
  };
}

it('SIGTERM under load: in-flight writes finish, no accepted write is lost, the stream is told to reconnect, exit 0', async () => {
  const child = await startChildServer(database, { SHUTDOWN_GRACE_MS: '10000' }, { syncHoldMs: 500 });
  const auth = { authorization: `Bearer ${user.token}` };
  try {
    // An open event stream.
    const stream = await fetch(`${child.url}/api/platform/v1/playback/events`, { headers: auth });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let streamText = '';
    const streamEnded = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        streamText += new TextDecoder().decode(value);
      }
    })();
    await until('the event stream to connect', () => streamText.includes(': connected'), 60_000);
    const idle = await idleKeepAlive(child.port);
    const halfWatchedAt = '2021-01-01T00:00:00.000Z';
    const half = await halfSentWrite(child.port, user.token, halfWatchedAt);

    // A steady stream of writes from four clients, each one item with its own watched_at.
    const writes: Write[] = [];
    let n = 0;
    const writer = async () => {
      for (;;) {
        const w: Write = { watchedAt: new Date(Date.UTC(2022, 0, 1) + n++ * 86_400_000).toISOString() };
        writes.push(w);
        try {
          const res = await fetch(`${child.url}/api/platform/v1/sync/history`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': newKey() },
            body: JSON.stringify({ items: [{ client_item_id: `w${n}`, movie_db_id: SPIRITED_AWAY, watched_at: w.watchedAt }] }),
          });
          w.requestId = res.headers.get('x-service-request-id');
          w.connection = res.headers.get('connection');
          const body = (await res.json()) as { inserted?: number };
          w.status = res.status;
          // Each watch is a day from the others: never a duplicate of one (DEDUP_WINDOW_MS).
          if (res.status === 200) expect(body.inserted).toBe(1);
        } catch (err) {
          w.error = String((err as { cause?: { code?: string } }).cause?.code ?? err);
          return;
        }
      }
    };
    const writers = Array.from({ length: 4 }, writer);

    // Some writes answered, then SIGTERM the moment another one is held open (between its writes and its commit).
    await until('four writes answered', () => writes.filter((w) => w.status === 200).length >= 4, 60_000);
    const heldBefore = child.logs.filter((l) => l.msg === 'sync batch held open').length;
    await until('another batch held open', () => child.logs.filter((l) => l.msg === 'sync batch held open').length > heldBefore, 60_000);
    child.process.kill('SIGTERM');
    await until('"shutting down"', () => child.logs.some((l) => l.msg === 'shutting down'), 60_000);

    // The port is closed at once, while the half-sent write is still in flight; that write, finished
    // now, is answered and applied, and its connection closed. ("At once": the log line is written just
    // before the port closes, so on a busy machine the child may be descheduled between the two; the
    // half-sent write cannot be answered before it is finished, so it is still in flight meanwhile.)
    await until('the port closed', async () => (await connectError(child.port)) === 'ECONNREFUSED', 2_000);
    const late = await half.finish();
    expect(late.statusLine).toBe('HTTP/1.1 200 OK');
    expect(late.headers.connection).toBe('close');
    expect(late.body).toMatchObject({ inserted: 1, skipped: 0 });
    // The idle keep-alive connection is closed; the event stream gets the hint and ends.
    await idle.closed;
    await streamEnded;
    expect(streamText.endsWith('retry: 1000\n: server shutting down; reconnect\n\n')).toBe(true);

    expect(await exited(child.process)).toBe(0);
    await Promise.all(writers);
    const msgs = child.logs.map((l) => l.msg);
    expect(msgs).toContain('stopped');
    // Done within the grace period: nothing had to be cut.
    expect(msgs).not.toContain('shutdown grace period over: cutting the connections still open');

    // Every write of the stream in flight at SIGTERM (held open before "shutting down" in the log,
    // answered after it) finished 200, telling its client to close the connection.
    const stop = msgs.indexOf('shutting down');
    const answeredAfter = new Set(child.logs.slice(stop).filter((l) => l.msg === 'request').map((l) => l.request_id));
    const inFlight = child.logs.slice(0, stop).filter((l) => l.msg === 'sync batch held open' && answeredAfter.has(l.request_id)).map((l) => l.request_id);
    if (servicesMode) expect(inFlight.length).toBeGreaterThanOrEqual(1);
    for (const id of inFlight) {
      const w = writes.find((x) => x.requestId === id);
      expect(w).toMatchObject({ status: 200, connection: 'close' });
    }
    // Every write was answered 200 or never got in (its connection was refused once the port closed).
    for (const w of writes) {
      if (w.status !== undefined) expect(w.status).toBe(200);
      else expect(w.error).toBe('ECONNREFUSED');
    }

    // No accepted write lost, and nothing refused applied: the database holds exactly the 200s.
    const db = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
    try {
      const rows = await query<{ watched_at: Date }>(db.orm.em.fork(), { text: 'select watched_at from watch_history where user_id = $1', params: [user.userId] });
      const stored = rows.map((r) => new Date(r.watched_at).toISOString()).sort();
      const accepted = [halfWatchedAt, ...writes.filter((w) => w.status === 200).map((w) => w.watchedAt)].sort();
      expect(accepted.length).toBeGreaterThanOrEqual(5);
      expect(stored).toEqual(accepted);
    } finally {
      await db.close();
    }
  } finally {
    await child.kill();
  }
});

it('a second SIGTERM exits at once (1), without waiting for the requests in flight', async () => {
  const child = await startChildServer(database, { SHUTDOWN_GRACE_MS: '60000' });
  try {
    // In flight until its body is finished, which it never is.
    await halfSentWrite(child.port, user.token, '2021-06-01T00:00:00.000Z');
    child.process.kill('SIGTERM');
    await until('"shutting down"', () => child.logs.some((l) => l.msg === 'shutting down'), 60_000);
    child.process.kill('SIGTERM');
    expect(await exited(child.process)).toBe(1);
    expect(child.logs.map((l) => l.msg)).toContain('second signal: exiting without finishing the shutdown');
  } finally {
    await child.kill();
  }
});

it('the end of the grace period cuts the connections still open, then the shutdown completes', async () => {
  const child = await startChildServer(database, { SHUTDOWN_GRACE_MS: '300' });
  try {
    await halfSentWrite(child.port, user.token, '2021-07-01T00:00:00.000Z');
    child.process.kill('SIGTERM');
    expect(await exited(child.process)).toBe(0);
    const msgs = child.logs.map((l) => l.msg);
    expect(msgs).toContain('shutdown grace period over: cutting the connections still open');
    expect(msgs.indexOf('stopped')).toBeGreaterThan(msgs.indexOf('shutdown grace period over: cutting the connections still open'));
  } finally {
    await child.kill();
  }
});
