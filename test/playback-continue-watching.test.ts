// Continue Watching: the list (shape, order, keyset paging), dismissing (never back without newer
// playback), expiry after 30 days (reads hide, the sweep deletes), and the change-feed records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { sweepPlayback } from './helpers/jobs.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice_cw', ['playback:write', 'playback:read']);
});
afterAll(() => app?.stop());

let clock = Date.now() - 60 * 60 * 1000;
let seq = 0;
const stop = (over: Record<string, unknown>, token = alice.token) =>
  platform(app, token, 'POST', '/playback/stop', {
    event_id: `cw-${++seq}`,
    event_created_at: (clock += 1000),
    media_type: 'movie',
    title: 'x',
    playback_session_id: `cw-s-${seq}`,
    ...over,
  });
const list = (query = '', token = alice.token) => platform(app, token, 'GET', `/me/continue-watching${query}`);

const ITEM_KEYS = ['durationSeconds', 'episode', 'episodeTitle', 'expiresAt', 'id', 'isAnime', 'movieDbId', 'name', 'playbackSessionId', 'positionSeconds', 'posterPath', 'progress', 'punchplayId', 'season', 'type', 'updatedAt', 'year'];

async function changes(userId: string) {
  return query<{ resource: string; resource_id: string; op: string; data: Record<string, unknown> | null }>(em(), {
    text: `select resource, resource_id, op, data from change_log where user_id = $1 and resource = 'playback' order by xid, id`,
    params: [userId],
  });
}

describe('GET /me/continue-watching', () => {
  it('lists one entry per title, most recent first, in the documented shape; the change feed holds the same record', async () => {
    await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.25, duration_seconds: 7500 });
    const ep = await platform(app, alice.token, 'POST', '/playback/stop', {
      event_id: `cw-${++seq}`, event_created_at: (clock += 1000), media_type: 'episode', title: 'x', movie_db_id: FIRST_SHOW, season: 1, episode: 3,
      playback_session_id: 'cw-show', progress: 0.5,
    });
    expect(ep.status).toBe(200);
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['items']);
    const [show, movie] = res.body.items as Array<Record<string, unknown>>;
    expect(Object.keys(movie!).sort()).toEqual(ITEM_KEYS);
    expect(movie).toEqual({
      id: expect.any(Number),
      type: 'movie',
      movieDbId: SPIRITED_AWAY,
      punchplayId: `movie-${SPIRITED_AWAY}`,
      isAnime: false,
      name: 'Spirited Away',
      year: 2001,
      posterPath: expect.any(String),
      season: null,
      episode: null,
      episodeTitle: null,
      progress: 0.25,
      positionSeconds: 1875,
      durationSeconds: 7500,
      playbackSessionId: expect.stringMatching(/^cw-s-/),
      updatedAt: expect.stringMatching(/Z$/),
      expiresAt: expect.stringMatching(/Z$/),
    });
    expect(Date.parse(movie!.expiresAt as string) - Date.parse(movie!.updatedAt as string)).toBe(30 * 24 * 60 * 60 * 1000);
    expect(show).toMatchObject({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 3, episodeTitle: expect.any(String), progress: 0.5, positionSeconds: null });
    const feed = await changes(alice.userId);
    expect(feed.at(-1)).toEqual({ resource: 'playback', resource_id: String(show!.id), op: 'upsert', data: show });
  });

  it('pages with a cursor bound to the other parameters', async () => {
    const first = await list('?limit=1');
    expect(first.body.items).toHaveLength(1);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await list(`?limit=1&cursor=${first.body.nextCursor as string}`);
    expect(second.body.items).toHaveLength(1);
    expect((second.body.items as Array<{ id: number }>)[0]!.id).not.toBe((first.body.items as Array<{ id: number }>)[0]!.id);
    expect(second.body.nextCursor).toBeUndefined();
    expectError(await list(`?limit=2&cursor=${first.body.nextCursor as string}`), 400, 'invalid_request');
    expectError(await list('?cursor=garbage'), 400, 'invalid_request');
  });

  it('limit is 1 to 100; unknown parameters are a 400', async () => {
    expect((await list('?limit=100')).status).toBe(200);
    expectError(await list('?limit=101'), 400, 'invalid_request');
    expectError(await list('?limit=0'), 400, 'invalid_request');
    expectError(await list('?sort=name'), 400, 'invalid_request');
  });

  it('needs playback:read (and dismissing needs playback:write)', async () => {
    expectError(await list('', ''), 401, 'invalid_token');
    const writeOnly = await tokenWith(app, alice, ['playback:write']);
    expectError(await list('', writeOnly), 403, 'insufficient_scope', { required_scope: 'playback:read' });
    const readOnly = await tokenWith(app, alice, ['playback:read']);
    expectError(await platform(app, readOnly, 'DELETE', '/me/continue-watching/1'), 403, 'insufficient_scope', { required_scope: 'playback:write' });
  });
});

describe('DELETE /me/continue-watching/{id}', () => {
  it('dismisses an entry: gone, recorded as a delete, and a delayed older event cannot bring it back', async () => {
    const bob = await member(app, 'bob_cw', ['playback:write', 'playback:read']);
    const before = clock;
    await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.3, playback_session_id: 'bob-1' }, bob.token);
    const [entry] = (await list('', bob.token)).body.items as Array<{ id: number }>;
    const res = await platform(app, bob.token, 'DELETE', `/me/continue-watching/${entry!.id}`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { id: entry!.id, dismissed: true } });
    expect((await list('', bob.token)).body.items).toEqual([]);
    expect((await changes(bob.userId)).at(-1)).toEqual({ resource: 'playback', resource_id: String(entry!.id), op: 'delete', data: null });
    expectError(await platform(app, bob.token, 'DELETE', `/me/continue-watching/${entry!.id}`), 404, 'not_found');

    // Events that happened before the dismissal (delayed, or an old session's snapshot) do not revive it.
    const late = await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.4, playback_session_id: 'bob-2', event_created_at: before + 500 }, bob.token);
    expect(late.body.ignored).toBe('dismissed');
    expect((await list('', bob.token)).body.items).toEqual([]);
    // New playback does.
    const fresh = await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.6, playback_session_id: 'bob-3', event_created_at: Date.now() }, bob.token);
    expect(fresh.body.ignored).toBe(null);
    expect((await list('', bob.token)).body.items).toMatchObject([{ id: entry!.id, progress: 0.6 }]);
  });

  it('404 for an entry of another user or an unknown id', async () => {
    const [entry] = (await list()).body.items as Array<{ id: number }>;
    const eve = await member(app, 'eve_cw', ['playback:write']);
    expectError(await platform(app, eve.token, 'DELETE', `/me/continue-watching/${entry!.id}`), 404, 'not_found');
    expectError(await platform(app, eve.token, 'DELETE', '/me/continue-watching/999999999'), 404, 'not_found');
    expectError(await platform(app, eve.token, 'DELETE', '/me/continue-watching/abc'), 400, 'invalid_request');
  });
});

describe('expiry', () => {
  it('hides entries 30 days after their last update; the sweep deletes them and records the delete', async () => {
    const carol = await member(app, 'carol_cw', ['playback:write', 'playback:read']);
    await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.3 }, carol.token);
    const [entry] = (await list('', carol.token)).body.items as Array<{ id: number }>;
    await query(em(), { text: `update continue_watching set updated_at = now() - interval '30 days 1 minute' where id = $1`, params: [entry!.id] });
    expect((await list('', carol.token)).body.items).toEqual([]);
    expectError(await platform(app, carol.token, 'DELETE', `/me/continue-watching/${entry!.id}`), 404, 'not_found');
    const swept = await sweepPlayback(app.db.orm);
    expect(swept.continueWatching).toBeGreaterThanOrEqual(1);
    expect(await query(em(), { text: `select 1 from continue_watching where id = $1`, params: [entry!.id] })).toEqual([]);
    expect((await changes(carol.userId)).at(-1)).toMatchObject({ resource_id: String(entry!.id), op: 'delete', data: null });
  });

  it('the sweep also drops stream events past the replay window, expired tickets, and old sessions and receipts', async () => {
    const db = em();
    await query(db, { text: `update stream_event set created_at = now() - interval '11 minutes'`, params: [] });
    await query(db, { text: `update playback_session set updated_at = now() - interval '31 days'`, params: [] });
    await query(db, { text: `update playback_event_receipt set received_at = now() - interval '8 days'`, params: [] });
    const swept = await sweepPlayback(app.db.orm);
    expect(swept.streamEvents).toBeGreaterThan(0);
    expect(swept.sessions).toBeGreaterThan(0);
    const left = await query<{ n: number }>(db, {
      text: `select (select count(*) from stream_event)::int + (select count(*) from playback_session)::int + (select count(*) from playback_event_receipt)::int as n`,
      params: [],
    });
    expect(left[0]!.n).toBe(0);
  });

  it('events older than the expiry do not create entries', async () => {
    const dave = await member(app, 'dave_cw', ['playback:write', 'playback:read']);
    const old = await stop({ movie_db_id: SPIRITED_AWAY, progress: 0.3, event_created_at: Date.now() - 31 * 24 * 60 * 60 * 1000 }, dave.token);
    expect(old.body.ignored).toBe('stale_event');
    expect((await list('', dave.token)).body.items).toEqual([]);
  });
});
