// Media servers scrobbling in: Plex, Jellyfin and Emby post their real payload shapes (the fixtures of
// test/fixtures/media-servers) to a receiver's URLs, and the plays become the user's playback: a start
// and a pause put the title in Continue Watching, a stop at 90% logs one history entry and takes it out,
// the change feed holds both, and a server sending the same event twice changes nothing more. Movies and
// episodes; Plex's scrobble then stop; a title the catalog lacks recorded as deferred; events of other
// accounts, of music and of the library ignored; a rewatch after a stop logs again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { until } from './helpers/wait.ts';
import { createReceiver, fixture, patched, postEmbyForm, postJson, postPlex, THUMB, type Created, type HookAnswer } from './helpers/media-servers.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let show: { name: string; year: number };
const SCOPES = ['playback:write', 'playback:read', 'history:read'];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  const [row] = await query<{ name: string; year: number }>(app.db.orm.em.fork(), { text: `select name, year from title where type = 'show' and movie_db_id = $1`, params: [FIRST_SHOW] });
  show = row!;
});
afterAll(() => app?.stop());

let users = 0;
async function household(): Promise<{ m: Member; receiver: Created }> {
  const m = await member(app, `hooks_user_${++users}`, SCOPES);
  return { m, receiver: await createReceiver(app, m.token) };
}

const history = async (m: Member) => (await ok(platform(app, m.token, 'GET', '/me/history'))).items as Array<Record<string, unknown>>;
const continueWatching = async (m: Member) => (await ok(platform(app, m.token, 'GET', '/me/continue-watching'))).items as Array<Record<string, unknown>>;

/**
 * The change log holds the Continue Watching entry (upsert), the watch (history upsert) and the entry
 * leaving Continue Watching (delete), in that order; the change feed serves the watch.
 */
async function expectFeed(m: Member) {
  expect((await changesOf(app, m.userId)).map((c) => [c.resource, c.op])).toEqual([
    ['playback', 'upsert'],
    ['history', 'upsert'],
    ['playback', 'delete'],
  ]);
  // The feed serves a change once no older transaction is open anywhere (the database is shared in services mode).
  let served: Array<Record<string, unknown>> = [];
  await until('the watch in the change feed', async () => {
    served = (await ok(platform(app, m.token, 'GET', '/me/sync/changes?resources=history'))).changes as Array<Record<string, unknown>>;
    return served.length > 0;
  });
  expect(served).toEqual([expect.objectContaining({ resource: 'history', op: 'upsert', data: expect.objectContaining({ movieDbId: SPIRITED_AWAY }) })]);
}

function expectOutcome(res: HookAnswer, outcome: string, reason: string | null = null, status = 200) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { ok: true, outcome, reason } });
}

/** The user's history entries of the rows the hooks wrote, with where they came from. */
async function sources(m: Member) {
  return query<{ source: string; client_id: string }>(app.db.orm.em.fork(), { text: `select source, client_id from watch_history where user_id = $1 order by id`, params: [m.userId] });
}

describe('Plex', () => {
  const movie = (event: string, viewOffsetMs: number) => patched(fixture('plex-movie'), { event, Metadata: { viewOffset: viewOffsetMs } });

  it('play, pause, stop at 90%: Continue Watching, then one history entry; the change feed has both; a repeated stop changes nothing', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postPlex(receiver.urls.plex, movie('media.play', 0), THUMB), 'recorded');
    // 30 of 125 minutes.
    expectOutcome(await postPlex(receiver.urls.plex, movie('media.pause', 1_800_000)), 'recorded');
    const [entry] = await continueWatching(m);
    expect(entry).toMatchObject({ type: 'movie', movieDbId: SPIRITED_AWAY, progress: 0.24, positionSeconds: 1800, durationSeconds: 7500, playbackSessionId: expect.stringMatching(/^plex-/) });
    expect(await history(m)).toEqual([]);

    expectOutcome(await postPlex(receiver.urls.plex, movie('media.resume', 1_800_000)), 'recorded');
    const stop = movie('media.stop', 6_750_000);
    expectOutcome(await postPlex(receiver.urls.plex, stop), 'recorded');
    expectOutcome(await postPlex(receiver.urls.plex, stop), 'duplicate');

    const entries = await history(m);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: 'movie', movieDbId: SPIRITED_AWAY, name: 'Spirited Away' });
    expect(await continueWatching(m)).toEqual([]);
    expect(await sources(m)).toEqual([{ source: 'playback', client_id: 'media-server:plex' }]);

    await expectFeed(m);
  });

  it('media.scrobble at 90%, then media.stop: one history entry', async () => {
    const { m, receiver } = await household();
    await postPlex(receiver.urls.plex, movie('media.play', 0), THUMB);
    expectOutcome(await postPlex(receiver.urls.plex, movie('media.scrobble', 6_750_000)), 'recorded');
    // Plex's stop comes after the credits: the session's watch is already in the history.
    expect((await postPlex(receiver.urls.plex, movie('media.stop', 7_400_000))).status).toBe(200);
    expectOutcome(await postPlex(receiver.urls.plex, movie('media.stop', 7_400_000)), 'duplicate');
    expectOutcome(await postPlex(receiver.urls.plex, movie('media.scrobble', 6_750_000)), 'duplicate');
    expect(await history(m)).toHaveLength(1);
    expect(await continueWatching(m)).toEqual([]);
  });

  it('an episode: its show by the legacy agent\'s guid, season and number from parentIndex and index', async () => {
    const { m, receiver } = await household();
    const episode = (event: string, viewOffsetMs: number) => patched(fixture('plex-episode'), { event, Metadata: { viewOffset: viewOffsetMs } });
    expectOutcome(await postPlex(receiver.urls.plex, episode('media.play', 0), THUMB), 'recorded');
    expectOutcome(await postPlex(receiver.urls.plex, episode('media.pause', 900_000)), 'recorded');
    expect(await continueWatching(m)).toEqual([expect.objectContaining({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, progress: 900 / 2700 })]);
    expectOutcome(await postPlex(receiver.urls.plex, episode('media.stop', 2_500_000)), 'recorded');
    expect(await history(m)).toEqual([expect.objectContaining({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2 })]);
  });

  it('a play after the stop is a new playback (its stop completes it again); a stop sent again is the same event', async () => {
    const { m, receiver } = await household();
    for (let round = 0; round < 2; round++) {
      expectOutcome(await postPlex(receiver.urls.plex, movie('media.play', 0)), 'recorded');
      // The same session would answer ignored: already_scrobbled.
      expectOutcome(await postPlex(receiver.urls.plex, movie('media.stop', 7_000_000)), 'recorded');
      expectOutcome(await postPlex(receiver.urls.plex, movie('media.stop', 7_000_000)), 'duplicate');
    }
    // Two watches within the history's one-hour duplicate window are one entry (Jellyfin's rewatch below is hours apart).
    expect(await history(m)).toHaveLength(1);
  });

  it('the same events sent twice at once are each one event: one history entry', async () => {
    const { m, receiver } = await household();
    const twice = async (p: Record<string, unknown>) => (await Promise.all([postPlex(receiver.urls.plex, p), postPlex(receiver.urls.plex, p)])).map((a) => a.body.outcome).sort();
    expect(await twice(movie('media.play', 0))).toEqual(['duplicate', 'recorded']);
    expect(await twice(movie('media.stop', 7_000_000))).toEqual(['duplicate', 'recorded']);
    expect(await history(m)).toHaveLength(1);
  });

  it('library.new and a music track are answered 200 ignored, and counted', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postPlex(receiver.urls.plex, fixture('plex-library-new'), THUMB), 'ignored', 'event_not_tracked');
    expectOutcome(await postPlex(receiver.urls.plex, fixture('plex-track')), 'ignored', 'media_not_tracked');
    const [listed] = (await ok(platform(app, m.token, 'GET', '/me/media-server-hooks'))).items as Array<Record<string, unknown>>;
    expect(listed).toMatchObject({ events: { plex: 2, jellyfin: 0, emby: 0 }, lastEventAt: expect.stringMatching(/Z$/) });
    expect(await history(m)).toEqual([]);
  });

  it('with an account filter, other accounts\' plays are ignored and the user\'s count (by name in any case, or by id)', async () => {
    const m = await member(app, `hooks_user_${++users}`, SCOPES);
    const byName = await createReceiver(app, m.token, { label: 'Shared server', accountFilter: 'ELAN' });
    const other = patched(movie('media.stop', 7_000_000), { Account: { id: 2, title: 'guest' } });
    expectOutcome(await postPlex(byName.urls.plex, other), 'ignored', 'other_account');
    expect(await history(m)).toEqual([]);
    expectOutcome(await postPlex(byName.urls.plex, movie('media.stop', 7_000_000)), 'recorded');
    const byId = await createReceiver(app, m.token, { label: 'By id', accountFilter: '2' });
    expectOutcome(await postPlex(byId.urls.plex, other), 'recorded');
    expectOutcome(await postPlex(byId.urls.plex, movie('media.play', 0)), 'ignored', 'other_account');
  });
});

describe('Jellyfin (generic destination, "Send All Properties", text/plain)', () => {
  let clock = Date.now() - 60_000;
  const at = () => new Date((clock += 1000)).toISOString();
  const movie = (type: string, positionTicks: number, extra: Record<string, unknown> = {}) =>
    patched(fixture('jellyfin-movie'), { NotificationType: type, PlaybackPositionTicks: positionTicks, UtcTimestamp: at(), ...extra });

  it('start, pause (a progress with IsPaused), stop at 90%: Continue Watching, one history entry, the feed; a repeated stop is one event', async () => {
    const { m, receiver } = await household();
    const post = (p: Record<string, unknown>) => postJson(receiver.urls.jellyfin, p, 'text/plain; charset=utf-8');
    expectOutcome(await post(movie('PlaybackStart', 0)), 'recorded');
    expectOutcome(await post(movie('PlaybackProgress', 18_000_000_000, { IsPaused: true })), 'recorded');
    expect(await continueWatching(m)).toEqual([expect.objectContaining({ movieDbId: SPIRITED_AWAY, progress: 0.24, positionSeconds: 1800, durationSeconds: 7500 })]);
    // Jellyfin reports progress while paused too: the same position again is the same event.
    expectOutcome(await post(movie('PlaybackProgress', 18_000_000_000, { IsPaused: true })), 'duplicate');
    const stop = movie('PlaybackStop', 67_500_000_000, { PlayedToCompletion: false });
    expectOutcome(await post(stop), 'recorded');
    expectOutcome(await post(stop), 'duplicate');
    expect(await history(m)).toEqual([expect.objectContaining({ movieDbId: SPIRITED_AWAY })]);
    expect(await continueWatching(m)).toEqual([]);
    expect(await sources(m)).toEqual([{ source: 'playback', client_id: 'media-server:jellyfin' }]);
    await expectFeed(m);
  });

  it('the event is dated by the server\'s UtcTimestamp: the history entry\'s watchedAt', async () => {
    const { m, receiver } = await household();
    const when = new Date(Date.now() - 10 * 60_000);
    await postJson(receiver.urls.jellyfin, movie('PlaybackStart', 0));
    expectOutcome(await postJson(receiver.urls.jellyfin, movie('PlaybackStop', 70_000_000_000, { UtcTimestamp: when.toISOString() })), 'recorded');
    expect((await history(m))[0]?.watchedAt).toBe(when.toISOString());
  });

  it('a rewatch hours later is a second history entry', async () => {
    const { m, receiver } = await household();
    for (const hoursAgo of [3, 0]) {
      const t = Date.now() - hoursAgo * 3_600_000;
      await postJson(receiver.urls.jellyfin, movie('PlaybackStart', 0, { UtcTimestamp: new Date(t - 7_000_000).toISOString() }));
      expectOutcome(await postJson(receiver.urls.jellyfin, movie('PlaybackStop', 70_000_000_000, { UtcTimestamp: new Date(t).toISOString() })), 'recorded');
    }
    expect(await history(m)).toHaveLength(2);
  });

  it('PlayedToCompletion logs the watch whatever the position', async () => {
    const { m, receiver } = await household();
    await postJson(receiver.urls.jellyfin, movie('PlaybackStart', 0));
    expectOutcome(await postJson(receiver.urls.jellyfin, movie('PlaybackStop', 10_000_000_000, { PlayedToCompletion: true })), 'recorded');
    expect(await history(m)).toHaveLength(1);
  });

  it('an episode: its show by SeriesName and the series\' Year, numbers from SeasonNumber and EpisodeNumber', async () => {
    const { m, receiver } = await household();
    const episode = (type: string, ticks: number) => patched(fixture('jellyfin-episode'), { NotificationType: type, PlaybackPositionTicks: ticks, SeriesName: show.name, Year: show.year, UtcTimestamp: at() });
    expectOutcome(await postJson(receiver.urls.jellyfin, episode('PlaybackStart', 0), 'text/plain'), 'recorded');
    expectOutcome(await postJson(receiver.urls.jellyfin, episode('PlaybackStop', 25_000_000_000), 'text/plain'), 'recorded');
    expect(await history(m)).toEqual([expect.objectContaining({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2 })]);
  });

  it('ItemAdded is ignored', async () => {
    const { receiver } = await household();
    expectOutcome(await postJson(receiver.urls.jellyfin, fixture('jellyfin-item-added'), 'text/plain'), 'ignored', 'event_not_tracked');
  });
});

describe('Emby', () => {
  let clock = Date.now() - 60_000;
  const at = () => new Date((clock += 1000)).toISOString();
  const movie = (event: string, positionTicks: number, info: Record<string, unknown> = {}) =>
    patched(fixture('emby-movie'), { Event: event, Date: at(), PlaybackInfo: { PositionTicks: positionTicks, ...info } });

  it('start, pause, unpause, stop at 90%: Continue Watching, one history entry, the feed; a repeated stop is one event', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postJson(receiver.urls.emby, movie('playback.start', 0)), 'recorded');
    expectOutcome(await postJson(receiver.urls.emby, movie('playback.pause', 18_000_000_000)), 'recorded');
    expect(await continueWatching(m)).toEqual([expect.objectContaining({ movieDbId: SPIRITED_AWAY, progress: 0.24 })]);
    expectOutcome(await postJson(receiver.urls.emby, movie('playback.unpause', 18_000_000_000)), 'recorded');
    const stop = movie('playback.stop', 67_500_000_000, { PlayedToCompletion: false });
    expectOutcome(await postJson(receiver.urls.emby, stop), 'recorded');
    expectOutcome(await postJson(receiver.urls.emby, stop), 'duplicate');
    expect(await history(m)).toEqual([expect.objectContaining({ movieDbId: SPIRITED_AWAY })]);
    expect(await continueWatching(m)).toEqual([]);
    expect(await sources(m)).toEqual([{ source: 'playback', client_id: 'media-server:emby' }]);
    await expectFeed(m);
  });

  it('the multipart form of Emby before 4.9 (its JSON in `data`) is read the same way', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postEmbyForm(receiver.urls.emby, movie('playback.start', 0)), 'recorded');
    expectOutcome(await postEmbyForm(receiver.urls.emby, movie('playback.stop', 70_000_000_000)), 'recorded');
    expect(await history(m)).toHaveLength(1);
  });

  it('an episode: its show by SeriesName, numbers from ParentIndexNumber and IndexNumber', async () => {
    const { m, receiver } = await household();
    const episode = (event: string, ticks: number) => patched(fixture('emby-episode'), { Event: event, Date: at(), Item: { SeriesName: show.name }, PlaybackInfo: { PositionTicks: ticks } });
    expectOutcome(await postJson(receiver.urls.emby, episode('playback.start', 0)), 'recorded');
    expectOutcome(await postJson(receiver.urls.emby, episode('playback.stop', 25_000_000_000)), 'recorded');
    expect(await history(m)).toEqual([expect.objectContaining({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2 })]);
  });

  it('the test notification of Emby\'s settings is answered 200 and counted', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postJson(receiver.urls.emby, fixture('emby-test')), 'ignored', 'test');
    const [listed] = (await ok(platform(app, m.token, 'GET', '/me/media-server-hooks'))).items as Array<Record<string, unknown>>;
    expect(listed).toMatchObject({ events: { plex: 0, jellyfin: 0, emby: 1 } });
  });

  it('a pause of a play the receiver never saw start opens it (Continue Watching moves) instead of failing', async () => {
    const { m, receiver } = await household();
    expectOutcome(await postJson(receiver.urls.emby, movie('playback.pause', 37_500_000_000)), 'recorded');
    expect(await continueWatching(m)).toEqual([expect.objectContaining({ movieDbId: SPIRITED_AWAY, progress: 0.5 })]);
  });
});

describe('a title the catalog lacks', () => {
  it('is recorded as deferred (202), once per item, and shown on the receiver with its ids; nothing is written', async () => {
    const { m, receiver } = await household();
    const unknown = (event: string, viewOffset: number) =>
      patched(fixture('plex-movie'), { event, Metadata: { title: 'No Such Film', year: 1999, viewOffset, Guid: [{ id: 'tmdb://987654' }, { id: 'imdb://tt7654321' }] } });
    expectOutcome(await postPlex(receiver.urls.plex, unknown('media.play', 0)), 'deferred', 'media_not_found', 202);
    expectOutcome(await postPlex(receiver.urls.plex, unknown('media.stop', 7_000_000)), 'deferred', 'media_not_found', 202);
    const [listed] = (await ok(platform(app, m.token, 'GET', '/me/media-server-hooks'))).items as Array<Record<string, unknown>>;
    expect(listed!.deferred).toEqual([
      {
        kind: 'plex', event: 'media.stop', mediaType: 'movie', title: 'No Such Film', year: 1999, season: null, episode: null,
        movieDbId: 987654, filmDbId: 'tt7654321', tvDbId: null, receivedAt: expect.stringMatching(/Z$/),
      },
    ]);
    expect(await history(m)).toEqual([]);
    expect(await continueWatching(m)).toEqual([]);
  });

  it('an episode the show does not have is deferred too', async () => {
    const { receiver } = await household();
    const missing = patched(fixture('plex-episode'), { event: 'media.stop', Metadata: { parentIndex: 99, index: 1, viewOffset: 2_600_000 } });
    expectOutcome(await postPlex(receiver.urls.plex, missing), 'deferred', 'media_not_found', 202);
  });
});
