// Trakt's scrobble and check-in endpoints and paused playback, over the playback procedure: Trakt's
// answers (exact keys and types), the 80 % rule, a retried request answered once, the 409s, and the
// watch showing in the platform's history and change feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { pagination, trakt } from './helpers/trakt.ts';
import { until } from './helpers/wait.ts';

let app: TestApp;
const SCOPES = ['playback:write', 'playback:read', 'history:read', 'history:write'];
const TOY_STORY = 862;
const CRIME = 7000;
let n = 0;
const someone = () => member(app, `scrobbler_${++n}`, SCOPES);

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
});
afterAll(() => app?.stop());

const movie = (tmdb: number) => ({ movie: { ids: { tmdb } } });
const episode = (season: number, number: number) => ({ show: { ids: { tmdb: FIRST_SHOW } }, episode: { season, number } });

const SHARING = { twitter: false, mastodon: false, tumblr: false };
const movieShape = { title: expect.any(String), year: expect.any(Number), ids: { trakt: expect.any(Number), slug: expect.any(String), imdb: expect.any(String), tmdb: expect.any(Number) } };
const showShape = { title: expect.any(String), year: expect.any(Number), ids: { trakt: expect.any(Number), slug: expect.any(String), tvdb: expect.toBeOneOf([null, expect.any(Number)]), imdb: expect.toBeOneOf([null, expect.any(String)]), tmdb: FIRST_SHOW, tvrage: null } };
const episodeShape = (season: number, number: number) => ({ season, number, title: expect.any(String), ids: { trakt: expect.any(Number), tvdb: null, imdb: null, tmdb: null, tvrage: null } });

/** Waits, when the minute is about to turn, for the next one: a retry must fall in its request's minute. */
async function sameMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
}

const history = async (who: Member) => (await platform(app, who.token, 'GET', '/me/history?limit=50')).body.items as Record<string, unknown>[];
const continueWatching = async (who: Member) => (await platform(app, who.token, 'GET', '/me/continue-watching')).body.items as Record<string, unknown>[];

describe('POST /scrobble/start|pause|stop', () => {
  it('start answers 201 in Trakt\'s shape, and the progress is in Continue Watching under the answer\'s id', async () => {
    const who = await someone();
    const res = await trakt(app, who, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 12.5, app_version: '1.0', app_date: '2014-09-22' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), action: 'start', progress: 12.5, sharing: SHARING, movie: { ...movieShape, title: 'Spirited Away', year: 2001, ids: { ...movieShape.ids, imdb: 'tt0245429', tmdb: SPIRITED_AWAY } } });
    const [entry] = await continueWatching(who);
    expect(entry).toMatchObject({ id: res.body.id, movieDbId: SPIRITED_AWAY, progress: 0.125 });
  });

  it('pause answers `pause`, even with no start before it (the progress is kept)', async () => {
    const who = await someone();
    const res = await trakt(app, who, 'POST', '/scrobble/pause', { ...movie(TOY_STORY), progress: 40 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), action: 'pause', progress: 40, sharing: SHARING, movie: movieShape });
    expect(await continueWatching(who)).toEqual([expect.objectContaining({ id: res.body.id, progress: 0.4 })]);
    // And after a start, a pause of the live session.
    expect((await trakt(app, who, 'POST', '/scrobble/start', { ...movie(TOY_STORY), progress: 41 })).status).toBe(201);
    const paused = await trakt(app, who, 'POST', '/scrobble/pause', { ...movie(TOY_STORY), progress: 45 });
    expect(paused.body).toMatchObject({ action: 'pause', progress: 45 });
    expect(await continueWatching(who)).toEqual([expect.objectContaining({ progress: 0.45 })]);
  });

  it('stop at 79 % is a pause: no watch, the progress stays', async () => {
    const who = await someone();
    await trakt(app, who, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 1 });
    const res = await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 79 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), action: 'pause', progress: 79, sharing: SHARING, movie: movieShape });
    expect(await history(who)).toEqual([]);
    expect(await continueWatching(who)).toEqual([expect.objectContaining({ id: res.body.id, progress: 0.79 })]);
  });

  it('stop at 80 % records the watch: `scrobble` with the history id, in /me/history and /me/sync/changes', async () => {
    const who = await someone();
    await trakt(app, who, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 50 });
    const res = await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 80 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), action: 'scrobble', progress: 80, sharing: SHARING, movie: movieShape });
    expect(await history(who)).toEqual([expect.objectContaining({ id: res.body.id, movieDbId: SPIRITED_AWAY, type: 'movie' })]);
    expect(await continueWatching(who)).toEqual([]);
    const feed = (await platform(app, who.token, 'GET', '/me/sync/changes?resources=history,playback')).body.changes as Record<string, unknown>[];
    expect(feed).toContainEqual(expect.objectContaining({ resource: 'history', resourceId: String(res.body.id), op: 'upsert' }));
    expect(feed).toContainEqual(expect.objectContaining({ resource: 'playback', op: 'delete' }));
  });

  it('an episode: `episode` and `show` in the answer, the watch in the history', async () => {
    const who = await someone();
    const res = await trakt(app, who, 'POST', '/scrobble/stop', { ...episode(1, 2), progress: 95 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), action: 'scrobble', progress: 95, sharing: SHARING, episode: episodeShape(1, 2), show: showShape });
    expect(await history(who)).toEqual([expect.objectContaining({ id: res.body.id, movieDbId: FIRST_SHOW, season: 1, episode: 2 })]);
    // The episode alone, by the trakt id the answer gave it.
    const again = await trakt(app, who, 'POST', '/scrobble/start', { episode: { ids: { trakt: (res.body.episode as { ids: { trakt: number } }).ids.trakt } }, progress: 3 });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ action: 'start', episode: { season: 1, number: 2 }, show: { ids: { tmdb: FIRST_SHOW } } });
  });

  it('a retried request answers its first answer and records one watch', async () => {
    const who = await someone();
    await sameMinute();
    const body = { ...movie(CRIME), progress: 90 };
    const first = await trakt(app, who, 'POST', '/scrobble/stop', body);
    const retry = await trakt(app, who, 'POST', '/scrobble/stop', body);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toStrictEqual(first.body);
    expect(await history(who)).toHaveLength(1);
    const startAgain = await trakt(app, who, 'POST', '/scrobble/start', { ...movie(TOY_STORY), progress: 5 });
    expect(await trakt(app, who, 'POST', '/scrobble/start', { ...movie(TOY_STORY), progress: 5 })).toMatchObject({ status: 201, body: startAgain.body });
  });

  it('409 with Trakt\'s body when the item was just scrobbled, and the watch is not recorded twice', async () => {
    const who = await someone();
    const first = await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 85 });
    expect(first.status).toBe(201);
    const again = await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 99 });
    expect(again.status).toBe(409);
    expect(again.body).toStrictEqual({ watched_at: expect.any(String), expires_at: expect.any(String) });
    // Spirited Away runs 125 minutes.
    expect(Date.parse(again.body.expires_at as string) - Date.parse(again.body.watched_at as string)).toBe(125 * 60_000);
    expect(await history(who)).toHaveLength(1);
  });

  it('404 for an item the catalog lacks', async () => {
    const who = await someone();
    expect((await trakt(app, who, 'POST', '/scrobble/start', { movie: { ids: { tmdb: 999_999_999 } }, progress: 1 })).status).toBe(404);
    expect((await trakt(app, who, 'POST', '/scrobble/start', { movie: { ids: { slug: 'no-such-movie-1900' } }, progress: 1 })).status).toBe(404);
    const noEpisode = await trakt(app, who, 'POST', '/scrobble/start', { ...episode(99, 1), progress: 1 });
    expect(noEpisode.status).toBe(404);
    expect(noEpisode.body).toStrictEqual({ error: 'not_found', error_description: expect.any(String) });
    expect((await trakt(app, who, 'POST', '/scrobble/start', { episode: { ids: { trakt: 999_999_999 } }, progress: 1 })).status).toBe(404);
  });

  it('422 for a bad progress, no item, or a stop under 1 %', async () => {
    const who = await someone();
    for (const body of [
      { ...movie(SPIRITED_AWAY), progress: 101 },
      { ...movie(SPIRITED_AWAY), progress: -1 },
      { ...movie(SPIRITED_AWAY), progress: 'half' },
      { ...movie(SPIRITED_AWAY) },
      { progress: 10 },
      { episode: { season: 1, number: 1 }, progress: 10 },
      { show: { ids: { tmdb: FIRST_SHOW } }, episode: {}, progress: 10 },
    ]) {
      const res = await trakt(app, who, 'POST', '/scrobble/start', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toStrictEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect((await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 0.5 })).status).toBe(422);
    expect(await continueWatching(who)).toEqual([]);
  });

  it('401 without a token, 403 without playback:write', async () => {
    const who = await someone();
    expect((await trakt(app, { clientId: who.clientId }, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 1 })).status).toBe(401);
    const readOnly = { ...who, token: await tokenWith(app, who, ['playback:read']) };
    const res = await trakt(app, readOnly, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 1 });
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  });

  it('a scrobble is a live playback event', async () => {
    const who = await someone();
    const token = await tokenWith(app, who, ['events:read', 'playback:read']);
    const names: string[] = [];
    const es = new EventSource(`${app.url}/api/platform/v1/playback/events`, { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } }) });
    try {
      for (const name of ['playback.start', 'playback.stop', 'continue_watching.updated']) es.addEventListener(name, () => names.push(name));
      await new Promise<void>((resolve, reject) => {
        es.addEventListener('open', () => resolve(), { once: true });
        es.addEventListener('error', () => reject(new Error('stream error')), { once: true });
      });
      await trakt(app, who, 'POST', '/scrobble/start', { ...movie(SPIRITED_AWAY), progress: 20 });
      await until('playback.start and continue_watching.updated arrive', () => names.includes('playback.start') && names.includes('continue_watching.updated'));
      await trakt(app, who, 'POST', '/scrobble/stop', { ...movie(SPIRITED_AWAY), progress: 90 });
      await until('playback.stop arrives', () => names.includes('playback.stop'));
    } finally {
      es.close();
    }
  });
});

describe('POST /checkin, DELETE /checkin', () => {
  it('checks in (201, Trakt\'s body), 409 with expires_at while it runs, DELETE 204 removes it', async () => {
    const who = await someone();
    const before = Date.now();
    const res = await trakt(app, who, 'POST', '/checkin', { ...movie(SPIRITED_AWAY), sharing: { twitter: true }, message: 'Watching', app_version: '1.0' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toStrictEqual({ id: expect.any(Number), watched_at: expect.any(String), sharing: SHARING, movie: { ...movieShape, title: 'Spirited Away' } });
    // Recorded as the watch at the end of the runtime (125 minutes).
    const end = Date.parse(res.body.watched_at as string);
    expect(end).toBeGreaterThanOrEqual(before + 125 * 60_000);
    expect(await history(who)).toEqual([expect.objectContaining({ id: res.body.id, watchedAt: res.body.watched_at })]);

    const busy = await trakt(app, who, 'POST', '/checkin', episode(1, 1));
    expect(busy.status).toBe(409);
    expect(busy.body).toStrictEqual({ expires_at: res.body.watched_at });

    const removed = await trakt(app, who, 'DELETE', '/checkin');
    expect(removed.status).toBe(204);
    expect(await history(who)).toEqual([]);
    // Nothing to delete is still 204; and a new check-in goes through.
    expect((await trakt(app, who, 'DELETE', '/checkin')).status).toBe(204);
    const next = await trakt(app, who, 'POST', '/checkin', episode(1, 1));
    expect(next.status).toBe(201);
    expect(next.body).toStrictEqual({ id: expect.any(Number), watched_at: expect.any(String), sharing: SHARING, episode: episodeShape(1, 1), show: showShape });
  });

  it('404 for an unknown item, 422 for none, 401 without a token', async () => {
    const who = await someone();
    expect((await trakt(app, who, 'POST', '/checkin', { movie: { ids: { tmdb: 999_999_999 } } })).status).toBe(404);
    expect((await trakt(app, who, 'POST', '/checkin', { message: 'hi' })).status).toBe(422);
    expect((await trakt(app, { clientId: who.clientId }, 'POST', '/checkin', movie(SPIRITED_AWAY))).status).toBe(401);
    expect((await trakt(app, { clientId: who.clientId }, 'DELETE', '/checkin')).status).toBe(401);
  });
});

describe('GET /sync/playback/{type}, DELETE /sync/playback/{id}', () => {
  it('lists paused movies and episodes in Trakt\'s shape, by type, by date range, in pages', async () => {
    const who = await someone();
    await trakt(app, who, 'POST', '/scrobble/pause', { ...movie(SPIRITED_AWAY), progress: 25.5 });
    await trakt(app, who, 'POST', '/scrobble/pause', { ...episode(1, 3), progress: 60 });
    const movies = await trakt(app, who, 'GET', '/sync/playback/movies');
    expect(movies.status).toBe(200);
    expect(movies.body).toStrictEqual([{ progress: 25.5, paused_at: expect.any(String), id: expect.any(Number), type: 'movie', movie: { ...movieShape, title: 'Spirited Away' } }]);
    const episodes = await trakt(app, who, 'GET', '/sync/playback/episodes');
    expect(episodes.body).toStrictEqual([{ progress: 60, paused_at: expect.any(String), id: expect.any(Number), type: 'episode', episode: episodeShape(1, 3), show: showShape }]);
    const all = await trakt(app, who, 'GET', '/sync/playback');
    expect((all.body as unknown as unknown[]).map((i) => (i as { type: string }).type)).toEqual(['episode', 'movie']);

    const paged = await trakt(app, who, 'GET', '/sync/playback?limit=1&page=2');
    expect(paged.body).toEqual([expect.objectContaining({ type: 'movie' })]);
    expect(pagination(paged)).toEqual({ page: 2, limit: 1, pageCount: 2, itemCount: 2 });
    expect((await trakt(app, who, 'GET', '/sync/playback/movies?end_at=2000-01-01')).body).toEqual([]);
    expect((await trakt(app, who, 'GET', '/sync/playback/movies?start_at=2000-01-01T00:00:00.000Z')).body).toHaveLength(1);
    expect((await trakt(app, who, 'GET', '/sync/playback/movies?start_at=yesterday')).status).toBe(400);
  });

  it('DELETE dismisses the entry (204), then 404; another user\'s entry is 404', async () => {
    const who = await someone();
    const other = await someone();
    const paused = await trakt(app, who, 'POST', '/scrobble/pause', { ...movie(TOY_STORY), progress: 30 });
    expect((await trakt(app, other, 'DELETE', `/sync/playback/${paused.body.id}`)).status).toBe(404);
    const res = await trakt(app, who, 'DELETE', `/sync/playback/${paused.body.id}`);
    expect(res.status).toBe(204);
    expect(await continueWatching(who)).toEqual([]);
    expect((await trakt(app, who, 'GET', '/sync/playback/movies')).body).toEqual([]);
    expect((await trakt(app, who, 'DELETE', `/sync/playback/${paused.body.id}`)).status).toBe(404);
    expect((await trakt(app, who, 'DELETE', '/sync/playback/abc')).status).toBe(404);
  });

  it('404 for another type, 401 without a token', async () => {
    const who = await someone();
    expect((await trakt(app, who, 'GET', '/sync/playback/shows')).status).toBe(404);
    expect((await trakt(app, { clientId: who.clientId }, 'GET', '/sync/playback/movies')).status).toBe(401);
  });
});
