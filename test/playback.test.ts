// POST /playback/{action}: the wire shape, validation, media resolution, dedup by event_id, and one
// test per row of the playback state table (core/playback/state.ts), including delayed snapshots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ['playback:write', 'playback:read']);
});
afterAll(() => app?.stop());

// Client timestamps an hour ago, one second apart, in send order unless a test says otherwise.
let clock = Date.now() - 60 * 60 * 1000;
let seq = 0;
const at = () => (clock += 1000);
const movie = (over: Record<string, unknown> = {}) => ({
  event_id: `ev-${++seq}`,
  event_created_at: at(),
  media_type: 'movie',
  title: 'Spirited Away',
  movie_db_id: SPIRITED_AWAY,
  playback_session_id: `s-${seq}`,
  ...over,
});
const episode = (over: Record<string, unknown> = {}) => ({
  event_id: `ev-${++seq}`,
  event_created_at: at(),
  media_type: 'episode',
  title: 'Some show',
  tv_db_id: undefined,
  movie_db_id: FIRST_SHOW,
  season: 1,
  episode: 1,
  playback_session_id: `s-${seq}`,
  ...over,
});
const post = (action: string, body: unknown, token = alice.token) => platform(app, token, 'POST', `/playback/${action}`, body);

async function historyCount(userId: string, source = 'playback'): Promise<number> {
  const [row] = await query<{ n: number }>(em(), { text: `select count(*)::int as n from watch_history where user_id = $1 and source = $2`, params: [userId, source] });
  return row!.n;
}

async function continueWatching(token = alice.token) {
  const res = await platform(app, token, 'GET', '/me/continue-watching?limit=100');
  expect(res.status).toBe(200);
  return res.body.items as Array<Record<string, unknown>>;
}

const entryFor = async (movieDbId: number, token = alice.token) => (await continueWatching(token)).find((i) => i.movieDbId === movieDbId);

const RESPONSE_KEYS = ['absolute_episode', 'anime', 'deduped', 'episode', 'episode_end', 'film_db_id', 'ignored', 'media_type', 'movie_db_id', 'ok', 'punchplay_id', 'season', 'tv_db_id'];

describe('response shape and media resolution', () => {
  it('answers a movie event with exactly the documented fields', async () => {
    const res = await post('start', movie({ progress: 0 }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(RESPONSE_KEYS);
    expect(res.body).toEqual({
      ok: true,
      media_type: 'movie',
      movie_db_id: SPIRITED_AWAY,
      tv_db_id: null,
      film_db_id: 'tt0245429',
      punchplay_id: `movie-${SPIRITED_AWAY}`,
      deduped: false,
      ignored: null,
      season: null,
      episode: null,
      episode_end: null,
      absolute_episode: null,
      anime: false,
    });
  });

  it('answers an episode with the resolved season, episode and absolute number', async () => {
    const res = await post('start', episode({ season: 1, episode: 2 }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      media_type: 'episode',
      movie_db_id: FIRST_SHOW,
      tv_db_id: null,
      film_db_id: null,
      punchplay_id: `show-${FIRST_SHOW}`,
      deduped: false,
      ignored: null,
      season: 1,
      episode: 2,
      episode_end: null,
      absolute_episode: 2,
      anime: false,
    });
  });

  it('resolves by punchplay_id, film_db_id, and title + year', async () => {
    const { movie_db_id: _m, ...noId } = movie();
    const byOwnId = await post('start', { ...noId, title: 'whatever', punchplay_id: `movie-${SPIRITED_AWAY}` });
    const byFilmDb = await post('start', { ...movie(), movie_db_id: undefined, title: 'whatever', film_db_id: 'tt0245429' });
    const byTitle = await post('start', { ...movie(), movie_db_id: undefined, title: 'spirited away', year: 2001 });
    for (const res of [byOwnId, byFilmDb, byTitle]) expect({ status: res.status, id: res.body.movie_db_id }).toEqual({ status: 200, id: SPIRITED_AWAY });
  });

  it('maps an anime absolute episode to its season and episode', async () => {
    const [target] = await query<{ movie_db_id: number; season_number: number; episode_number: number; absolute_number: number }>(em(), {
      text: `select t.movie_db_id, e.season_number, e.episode_number, e.absolute_number from title t join episode e on e.title_id = t.id
        where t.type = 'show' and e.season_number = 2 and e.episode_number = 1 order by t.movie_db_id limit 1`,
      params: [],
    });
    await query(em(), { text: `update title set is_anime = true where type = 'show' and movie_db_id = $1`, params: [target!.movie_db_id] });
    // Media servers number anime absolutely under season 1: absolute_episode wins for anime.
    const res = await post('start', episode({ movie_db_id: target!.movie_db_id, season: 1, episode: target!.absolute_number, absolute_episode: target!.absolute_number, anime: true }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ season: 2, episode: 1, absolute_episode: target!.absolute_number, anime: true });
  });

  it('422 media_not_found for an unknown title or episode', async () => {
    expectError(await post('start', movie({ movie_db_id: 999_999_999, title: 'No such film at all' })), 422, 'media_not_found');
    expectError(await post('start', episode({ season: 99, episode: 1 })), 422, 'media_not_found');
  });
});

describe('validation (400 invalid_request)', () => {
  it('requires each of the required fields', async () => {
    for (const field of ['event_id', 'event_created_at', 'media_type', 'title', 'playback_session_id']) {
      const body: Record<string, unknown> = movie();
      delete body[field];
      expectError(await post('start', body), 400, 'invalid_request');
    }
    for (const field of ['season', 'episode']) {
      const body: Record<string, unknown> = episode();
      delete body[field];
      expectError(await post('start', body), 400, 'invalid_request');
    }
  });

  it('rejects unknown fields, unknown actions and out-of-range values', async () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['start', movie({ colour: 'red' })],
      ['rewind', movie()],
      ['start', movie({ progress: 1.01 })],
      ['start', movie({ progress: -0.1 })],
      ['start', movie({ duration_seconds: 100, position_seconds: 101 })],
      ['start', movie({ event_created_at: Date.now() + 25 * 60 * 60 * 1000 })],
      ['start', movie({ event_created_at: 1000 })],
      ['start', movie({ watched_threshold: 0 })],
      ['start', movie({ watched_threshold: 1.5 })],
      ['start', movie({ season: 1 })],
      ['start', movie({ punchplay_id: 'show-9000001' })],
      ['start', movie({ punchplay_id: 'movie:129' })],
      ['start', episode({ episode: 3, episode_end: 2 })],
      ['start', episode({ episode: 1, episode_end: 51 })],
      ['start', movie({ event_id: '' })],
      ['start', movie({ movie_db_id: 0 })],
    ];
    for (const [action, body] of bad) expectError(await post(action, body), 400, 'invalid_request');
  });

  it('accepts the edges of the ranges', async () => {
    for (const over of [{ progress: 0 }, { progress: 1, watched: false }, { watched_threshold: 1 }, { event_created_at: Date.now() + 23 * 60 * 60 * 1000 }]) {
      expect((await post('progress', movie(over))).status).toBe(200);
    }
    expect((await post('start', episode({ episode: 1, episode_end: 50 }))).status).toBe(200);
  });
});

describe('scopes and errors', () => {
  it('401 without a token, 403 naming playback:write without it', async () => {
    expectError(await post('start', movie(), ''), 401, 'invalid_token');
    const readOnly = await tokenWith(app, alice, ['playback:read']);
    expectError(await post('start', movie(), readOnly), 403, 'insufficient_scope', { required_scope: 'playback:write' });
  });

  it('500 server_error in the envelope on an unexpected failure', async () => {
    await query(em(), { text: `alter table playback_event_receipt rename to playback_event_receipt_away`, params: [] });
    try {
      expectError(await post('start', movie()), 500, 'server_error');
    } finally {
      await query(em(), { text: `alter table playback_event_receipt_away rename to playback_event_receipt`, params: [] });
    }
  });
});

describe('dedup by event_id', () => {
  it('answers a repeated event_id with the first answer and deduped: true, per user', async () => {
    const body = movie({ progress: 0.3 });
    // A refused event is not recorded: its event_id can still be used.
    expectError(await post('pause', { ...body, playback_session_id: 'dedup' }), 409, 'playback_state_conflict');
    const first = await post('start', body);
    expect(first.body).toMatchObject({ deduped: false, ignored: null });
    const again = await post('start', { ...body, progress: 0.9 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, deduped: true });
    const bob = await member(app, 'bob_dedup', ['playback:write']);
    expect((await post('start', body, bob.token)).body).toMatchObject({ deduped: false });
  });
});

describe('state table', () => {
  it('none + incomplete stop: inactive Continue Watching progress, no earlier event needed', async () => {
    const res = await post('stop', movie({ playback_session_id: 'passive-1', progress: 0.4, duration_seconds: 7500 }));
    expect(res.body).toMatchObject({ ignored: null });
    expect(await entryFor(SPIRITED_AWAY)).toMatchObject({ progress: 0.4, positionSeconds: 3000, durationSeconds: 7500, playbackSessionId: 'passive-1' });
    expect(await historyCount(alice.userId)).toBe(0);
  });

  it('inactive progress + later passive snapshot with the same session: updated progress', async () => {
    const res = await post('stop', movie({ playback_session_id: 'passive-1', progress: 0.55 }));
    expect(res.body).toMatchObject({ ignored: null });
    expect(await entryFor(SPIRITED_AWAY)).toMatchObject({ progress: 0.55, playbackSessionId: 'passive-1' });
  });

  it('delayed snapshots arriving out of order never replace newer progress', async () => {
    const t = at();
    const session = 'out-of-order';
    const newest = await post('stop', movie({ playback_session_id: session, event_created_at: t + 3000, progress: 0.7, watched: false }));
    const oldest = await post('stop', movie({ playback_session_id: session, event_created_at: t + 1000, progress: 0.2 }));
    const middle = await post('stop', movie({ playback_session_id: session, event_created_at: t + 2000, progress: 0.5 }));
    clock = t + 4000;
    expect([newest, oldest, middle].map((r) => [r.status, r.body.ignored])).toEqual([
      [200, null],
      [200, 'stale_event'],
      [200, 'stale_event'],
    ]);
    expect(await entryFor(SPIRITED_AWAY)).toMatchObject({ progress: 0.7, playbackSessionId: session });
    // An older snapshot of another session does not replace it either.
    const other = await post('stop', movie({ playback_session_id: 'older-session', event_created_at: t + 500, progress: 0.1 }));
    expect(other.body.ignored).toBe('stale_event');
    expect(await entryFor(SPIRITED_AWAY)).toMatchObject({ progress: 0.7 });
  });

  it('none + standalone pause (or resume): 409 playback_state_conflict', async () => {
    expectError(await post('pause', movie({ playback_session_id: 'never-started', progress: 0.2 })), 409, 'playback_state_conflict');
    expectError(await post('resume', movie({ playback_session_id: 'never-started' })), 409, 'playback_state_conflict');
  });

  it('stopped session + pause: 409; + start: playing again', async () => {
    await post('stop', movie({ playback_session_id: 'stopped-1', progress: 0.3 }));
    expectError(await post('pause', movie({ playback_session_id: 'stopped-1', progress: 0.3 })), 409, 'playback_state_conflict');
    expect((await post('start', movie({ playback_session_id: 'stopped-1', progress: 0.3 }))).body.ignored).toBe(null);
    expect((await post('pause', movie({ playback_session_id: 'stopped-1', progress: 0.35 }))).body.ignored).toBe(null);
  });

  it('live playback: start, progress (position derived from duration), pause, resume', async () => {
    const s = { playback_session_id: 'live-1', movie_db_id: 862, title: 'Toy Story' };
    expect((await post('start', movie({ ...s, progress: 0 }))).body.ignored).toBe(null);
    expect(await entryFor(862)).toBeUndefined();
    expect((await post('progress', movie({ ...s, progress: 0.25, duration_seconds: 4800 }))).body.ignored).toBe(null);
    expect(await entryFor(862)).toMatchObject({ progress: 0.25, positionSeconds: 1200, durationSeconds: 4800 });
    expect((await post('pause', movie({ ...s, progress: 0.3 }))).body.ignored).toBe(null);
    expect((await post('resume', movie({ ...s, progress: 0.3 }))).body.ignored).toBe(null);
    expect((await post('progress', movie({ ...s, position_seconds: 2400, duration_seconds: 4800 }))).body.ignored).toBe(null);
    expect(await entryFor(862)).toMatchObject({ progress: 0.5, positionSeconds: 2400 });
    // Nothing new: the same state and progress again.
    expect((await post('progress', movie({ ...s, position_seconds: 2400, duration_seconds: 4800 }))).body.ignored).toBe('no_change');
  });

  it('stop at or over the threshold: exactly one history entry per session, and the title leaves Continue Watching', async () => {
    const s = { playback_session_id: 'finish-1', movie_db_id: 862, title: 'Toy Story' };
    const before = await historyCount(alice.userId);
    expect((await post('stop', movie({ ...s, progress: 0.8 }))).body.ignored).toBe(null);
    expect(await historyCount(alice.userId)).toBe(before + 1);
    expect(await entryFor(862)).toBeUndefined();
    expect((await post('stop', movie({ ...s, progress: 0.8 }))).body.ignored).toBe('already_scrobbled');
    expect((await post('stop', movie({ ...s, progress: 0.95 }))).body.ignored).toBe(null);
    expect(await historyCount(alice.userId)).toBe(before + 1);
    const [row] = await query<{ source: string; client_id: string }>(em(), { text: `select source, client_id from watch_history where user_id = $1 order by id desc limit 1`, params: [alice.userId] });
    expect(row).toEqual({ source: 'playback', client_id: alice.clientId });
  });

  it('watched: true logs whatever the progress; watched: false keeps progress; watched_threshold moves the bar', async () => {
    const bob = await member(app, 'bob_watched', ['playback:write', 'playback:read']);
    await post('stop', movie({ progress: 0.1, watched: true }), bob.token);
    expect(await historyCount(bob.userId)).toBe(1);
    await post('stop', movie({ movie_db_id: 862, title: 'Toy Story', progress: 0.95, watched: false }), bob.token);
    expect(await historyCount(bob.userId)).toBe(1);
    expect(await entryFor(862, bob.token)).toMatchObject({ progress: 0.95 });
    await post('stop', movie({ movie_db_id: 862, title: 'Toy Story', progress: 0.6, watched_threshold: 0.5 }), bob.token);
    expect(await historyCount(bob.userId)).toBe(2);
    expect(await entryFor(862, bob.token)).toBeUndefined();
  });

  it('a multi-episode file logs one entry per episode up to episode_end', async () => {
    const carol = await member(app, 'carol_multi', ['playback:write']);
    const res = await post('stop', episode({ season: 1, episode: 1, episode_end: 3, multi_episode: true, progress: 0.9 }), carol.token);
    expect(res.body).toMatchObject({ season: 1, episode: 1, episode_end: 3, ignored: null });
    const rows = await query<{ episode_number: number }>(em(), { text: `select episode_number from watch_history where user_id = $1 order by episode_number`, params: [carol.userId] });
    expect(rows.map((r) => r.episode_number)).toEqual([1, 2, 3]);
  });

  it('a delayed completed stop still logs the watch once, without touching newer progress', async () => {
    const dave = await member(app, 'dave_delayed', ['playback:write', 'playback:read']);
    const t = at();
    clock = t + 5000;
    await post('progress', episode({ playback_session_id: 'd1', event_created_at: t + 2000, progress: 0.1 }), dave.token);
    const late = await post('stop', episode({ playback_session_id: 'd1', event_created_at: t + 1000, progress: 0.9 }), dave.token);
    expect(late.body.ignored).toBe(null);
    expect(await historyCount(dave.userId)).toBe(1);
    const again = await post('stop', episode({ playback_session_id: 'd1', event_created_at: t + 1500, progress: 0.9 }), dave.token);
    expect(again.body.ignored).toBe('stale_event');
    expect(await historyCount(dave.userId)).toBe(1);
  });

  it('an incomplete stop without progress opens nothing: ignored no_progress', async () => {
    expect((await post('stop', movie({ playback_session_id: 'bare-stop' }))).body.ignored).toBe('no_progress');
  });
});
