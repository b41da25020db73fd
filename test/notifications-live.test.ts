// The live unread count, `notifications.unread` {unread}, on the user's event stream: GET /playback/events
// through a real EventSource client (the `eventsource` package) and the /trpc subscription
// `platform.playback.events` through the client package. A notification recorded for the user (here a
// list invitation from another user) sends the new count, marking one or all read sends the lower count,
// marking one already read sends nothing; a token without notifications:read never receives the event,
// live or replayed after lastEventId; and in services mode the count reaches a stream on another instance.
// "Never" is waited for with an event both streams get after it (a playback start): events come in id
// order, so a stream that has the later event would have had the earlier one.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventSource, type FetchLike } from 'eventsource';
import { createClient } from '../packages/client/src/index.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { member, ok, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

const UNREAD = 'notifications.unread';
const MARKER = 'playback.start';

let app: TestApp;
const open: Array<{ stop(): void }> = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterEach(() => {
  for (const s of open.splice(0)) s.stop();
});
afterAll(() => app?.stop());

type Received = { id: string; name: string; data: Record<string, unknown> };

/** GET /playback/events through EventSource, on `target`: every named event it delivers, in order. */
function sse(target: TestApp, token: string) {
  const received: Received[] = [];
  const withAuth: FetchLike = (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
  const es = new EventSource(`${target.url}/api/platform/v1/playback/events`, { fetch: withAuth });
  open.push({ stop: () => es.close() });
  for (const name of [UNREAD, MARKER, 'continue_watching.updated']) {
    es.addEventListener(name, (e) => received.push({ id: e.lastEventId, name, data: JSON.parse(e.data) as Record<string, unknown> }));
  }
  const opened = new Promise<void>((resolve, reject) => {
    es.addEventListener('open', () => resolve(), { once: true });
    es.addEventListener('error', (e) => reject(new Error(`stream error ${String((e as { code?: number }).code)}`)), { once: true });
  });
  return { received, opened };
}

/** platform.playback.events through the client package: every message, `stream.open` included. */
function subscription(token: string, input?: { lastEventId: string }) {
  const received: Received[] = [];
  const sub = createClient({ baseUrl: app.url, token }).platform.playback.events.subscribe(input, { onData: ({ id, data }) => received.push({ id, ...data }) });
  const stop = () => sub.unsubscribe();
  open.push({ stop });
  return { received, stop };
}

type Reader = { user: Member; /** events:read and notifications:read */ full: string; /** events:read only */ eventsOnly: string; writer: string };

let readers = 0;
/** A user with a stream token that may read notifications, one that may not, and one that writes. */
async function reader(): Promise<Reader> {
  const user = await member(app, `live_reader_${++readers}`, ['events:read', 'notifications:read']);
  return {
    user,
    full: user.token,
    eventsOnly: await tokenWith(app, user, ['events:read', 'playback:read']),
    writer: await tokenWith(app, user, ['notifications:write', 'notifications:read', 'playback:write']),
  };
}

let owner: Member;
let lists = 0;
/** Another user invites `r` to a new list of theirs: one `list_invitation` notification for `r`. */
async function invite(r: Reader, target: TestApp = app): Promise<void> {
  owner ??= await member(app, 'live_owner', ['lists:write', 'lists:read']);
  const list = await ok(platform(target, owner.token, 'POST', '/lists', { name: `Invitation ${++lists}` }));
  expect(await ok(platform(target, owner.token, 'POST', `/lists/${list.id}/collaborators`, { username: r.user.username }))).toMatchObject({ status: 'invited' });
}

let seq = 0;
/** A playback start: an event every stream of the user gets, after whatever came before it. */
const mark = (r: Reader, target: TestApp = app) =>
  ok(
    platform(target, r.writer, 'POST', '/playback/start', {
      event_id: `live-${++seq}`,
      event_created_at: Date.now() - 60_000 + seq,
      media_type: 'movie',
      title: 'Spirited Away',
      movie_db_id: SPIRITED_AWAY,
      playback_session_id: `live-${seq}`,
    }),
  );

const unreadNow = async (r: Reader) => (await ok(platform(app, r.writer, 'GET', '/me/notifications/unread-count'))).unread;
const inbox = async (r: Reader) => (await ok(platform(app, r.writer, 'GET', '/me/notifications'))).items as Array<{ id: string; read: boolean }>;
const counts = (received: Received[]) => received.filter((e) => e.name === UNREAD).map((e) => e.data);
const markers = (received: Received[]) => received.filter((e) => e.name === MARKER).length;

/** The writes every transport is checked with, each followed by the count its stream must send (null: none). */
async function script(r: Reader, expectCount: (count: number | null, step: string) => Promise<void>): Promise<void> {
  await invite(r);
  await expectCount(1, 'an invitation');
  await invite(r);
  await expectCount(2, 'a second invitation');
  const [newest] = await inbox(r);
  await ok(platform(app, r.writer, 'POST', `/me/notifications/${newest!.id}/read`, {}));
  await expectCount(1, 'one marked read');
  await ok(platform(app, r.writer, 'POST', `/me/notifications/${newest!.id}/read`, {}));
  await expectCount(null, 'the same one marked read again');
  expect(await ok(platform(app, r.writer, 'POST', '/me/notifications/read-all', {}))).toEqual({ marked: 1 });
  await expectCount(0, 'all marked read');
  expect(await ok(platform(app, r.writer, 'POST', '/me/notifications/read-all', {}))).toEqual({ marked: 0 });
  await expectCount(null, 'nothing left to mark');
}

/** Waits for the marker after a step on both streams, then holds what each got since the last step. */
function checker(r: Reader, full: Received[], eventsOnly: Received[]) {
  let seen = { full: 0, eventsOnly: 0, markers: 0 };
  return async (count: number | null, step: string) => {
    await mark(r);
    seen.markers++;
    await until(`the marker after ${step}`, () => markers(full) === seen.markers && markers(eventsOnly) === seen.markers);
    const got = counts(full.slice(seen.full));
    expect(got, step).toEqual(count === null ? [] : [{ unread: count }]);
    if (count !== null) expect(await unreadNow(r), step).toBe(count);
    expect(eventsOnly.slice(seen.eventsOnly).map((e) => e.name), step).not.toContain(UNREAD);
    seen = { full: full.length, eventsOnly: eventsOnly.length, markers: seen.markers };
  };
}

describe('notifications.unread on GET /playback/events', () => {
  it('sends the unread count when a notification is recorded or read, only to tokens with notifications:read', async () => {
    const r = await reader();
    const full = sse(app, r.full);
    const eventsOnly = sse(app, r.eventsOnly);
    await Promise.all([full.opened, eventsOnly.opened]);
    await script(r, checker(r, full.received, eventsOnly.received));
    const unread = full.received.filter((e) => e.name === UNREAD);
    expect(unread.map((e) => e.data)).toEqual([{ unread: 1 }, { unread: 2 }, { unread: 1 }, { unread: 0 }]);
    // Ids grow with every event, the unread counts' among the others.
    const ids = full.received.map((e) => BigInt(e.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect(eventsOnly.received.map((e) => e.name).filter((n) => n === UNREAD)).toEqual([]);
  });
});

describe('notifications.unread on platform.playback.events (/trpc)', () => {
  it('sends the same counts, and never to a token without notifications:read', async () => {
    const r = await reader();
    const full = subscription(r.full);
    const eventsOnly = subscription(r.eventsOnly);
    await until('both streams open', () => full.received.length === 1 && eventsOnly.received.length === 1);
    expect([full.received[0]!.name, eventsOnly.received[0]!.name]).toEqual(['stream.open', 'stream.open']);
    await script(r, checker(r, full.received, eventsOnly.received));
    expect(counts(full.received)).toEqual([{ unread: 1 }, { unread: 2 }, { unread: 1 }, { unread: 0 }]);
  });

  it('replays the counts after lastEventId to a token with notifications:read only', async () => {
    const r = await reader();
    const first = subscription(r.full);
    await until('the stream start', () => first.received.length === 1);
    const start = first.received[0]!.id;
    first.stop();
    await invite(r);
    await mark(r);
    const full = subscription(r.full, { lastEventId: start });
    const eventsOnly = subscription(r.eventsOnly, { lastEventId: start });
    await until('the replayed marker', () => markers(full.received) === 1 && markers(eventsOnly.received) === 1);
    expect(full.received.map((e) => e.name)).toEqual([UNREAD, MARKER]);
    expect(full.received[0]!.data).toEqual({ unread: 1 });
    expect(eventsOnly.received.map((e) => e.name)).toEqual([MARKER]);
    // The hidden event's id was passed over, not missed: a live event after it goes straight on.
    await invite(r);
    await mark(r);
    await until('the live marker', () => markers(full.received) === 2 && markers(eventsOnly.received) === 2);
    expect(counts(full.received)).toEqual([{ unread: 1 }, { unread: 2 }]);
    expect(eventsOnly.received.map((e) => e.name)).toEqual([MARKER, MARKER]);
  });
});

describe.skipIf(!servicesMode || !process.env.REDIS_URL)('two instances on one Redis (services mode)', () => {
  it('a notification recorded on one instance sends the count to a stream on the other', async () => {
    const prefix = `unread_${process.pid}_${Date.now()}`;
    const one = await startTestApp({ REDIS_KEY_PREFIX: prefix }, { sameDatabaseAs: app });
    const two = await startTestApp({ REDIS_KEY_PREFIX: prefix }, { sameDatabaseAs: app });
    try {
      const r = await reader();
      const full = sse(two, r.full);
      const eventsOnly = sse(two, r.eventsOnly);
      await Promise.all([full.opened, eventsOnly.opened]);
      await invite(r, one);
      await mark(r, one);
      await until('the events from the other instance', () => markers(full.received) === 1 && markers(eventsOnly.received) === 1);
      expect(counts(full.received)).toEqual([{ unread: 1 }]);
      expect(counts(eventsOnly.received)).toEqual([]);
    } finally {
      for (const s of open.splice(0)) s.stop();
      await one.stop();
      await two.stop();
    }
  });
});
