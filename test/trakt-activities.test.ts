// GET /trakt/sync/last_activities from the change feed: Trakt's exact shape, the epoch where the service
// has no source, each timestamp moved by the matching change made through the platform API (or the
// facade), deletes moving every timestamp of their resource, and the token's read scopes respected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { resolveEpisodes } from '../src/core/catalog/resolve.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { titleId, watch } from './helpers/title-fixtures.ts';
import { trakt } from './helpers/trakt.ts';

let app: TestApp;
const SCOPES = ['playback:write', 'playback:read', 'history:read', 'history:write', 'ratings:read', 'ratings:write', 'collection:read', 'lists:read', 'profile:read', 'profile:write'];
let n = 0;
const someone = (scopes = SCOPES) => member(app, `active_${++n}`, scopes);
const EPOCH = '1970-01-01T00:00:00.000Z';

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

type Activities = Record<string, string | Record<string, string>>;
const activities = async (who: Pick<Member, 'token' | 'clientId'>): Promise<Activities> => {
  const res = await trakt(app, who, 'GET', '/sync/last_activities');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Activities;
};
const group = (a: Activities, name: string) => a[name] as Record<string, string>;

/** Every key Trakt's answer has, each group's in its order. */
const SHAPE = {
  movies: ['watched_at', 'collected_at', 'rated_at', 'watchlisted_at', 'favorited_at', 'commented_at', 'paused_at', 'hidden_at'],
  episodes: ['watched_at', 'collected_at', 'rated_at', 'watchlisted_at', 'commented_at', 'paused_at'],
  shows: ['rated_at', 'watchlisted_at', 'favorited_at', 'commented_at', 'hidden_at', 'dropped_at'],
  seasons: ['rated_at', 'watchlisted_at', 'commented_at', 'hidden_at'],
  comments: ['liked_at', 'reacted_at', 'blocked_at'],
  lists: ['liked_at', 'reacted_at', 'updated_at', 'commented_at'],
  watchlist: ['updated_at'],
  favorites: ['updated_at'],
  collaborations: ['updated_at'],
  account: ['settings_at', 'followed_at', 'following_at', 'pending_at', 'requested_at'],
  saved_filters: ['updated_at'],
  notes: ['updated_at'],
};

/** Asserts that a change made between `before` and now moved exactly the timestamps named (`all` too). */
function expectMoved(was: Activities, now: Activities, moved: string[], before: number) {
  for (const [name, keys] of Object.entries(SHAPE)) {
    for (const key of keys) {
      const path = `${name}.${key}`;
      const value = group(now, name)[key]!;
      if (moved.includes(path)) {
        expect(Date.parse(value), path).toBeGreaterThanOrEqual(before - 1000);
      } else expect(value, path).toBe(group(was, name)[key]);
    }
  }
  expect(Date.parse(now.all as string)).toBeGreaterThanOrEqual(before - 1000);
}

describe('GET /sync/last_activities', () => {
  it('answers Trakt\'s shape; with no changes every timestamp is the epoch', async () => {
    const who = await someone();
    const body = await activities(who);
    expect(Object.keys(body)).toEqual(['all', ...Object.keys(SHAPE)]);
    expect(body.all).toBe(EPOCH);
    for (const [name, keys] of Object.entries(SHAPE)) {
      expect(Object.keys(group(body, name)), name).toEqual(keys);
      for (const key of keys) expect(group(body, name)[key], `${name}.${key}`).toBe(EPOCH);
    }
  });

  it('a rating through the platform moves movies.rated_at only; removing it moves every rated_at', async () => {
    const who = await someone();
    const was = await activities(who);
    const before = Date.now();
    const rated = await platform(app, who.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 8 });
    expect(rated.status).toBe(200);
    const now = await activities(who);
    expectMoved(was, now, ['movies.rated_at'], before);
    expect(now.all).toBe(group(now, 'movies').rated_at);

    const before2 = Date.now();
    expect((await platform(app, who.token, 'DELETE', `/ratings/${rated.body.id}`)).status).toBe(200);
    const after = await activities(who);
    // A delete carries no record of what it was: every timestamp of the resource moves (over-reports).
    expectMoved(now, after, ['movies.rated_at', 'episodes.rated_at', 'shows.rated_at', 'seasons.rated_at'], before2);
  });

  it('watches through the platform move movies.watched_at or episodes.watched_at', async () => {
    const who = await someone();
    const was = await activities(who);
    const before = Date.now();
    expect((await platform(app, who.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1 })).status).toBe(200);
    const now = await activities(who);
    expectMoved(was, now, ['episodes.watched_at'], before);
    const before2 = Date.now();
    expect((await platform(app, who.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY })).status).toBe(200);
    expectMoved(now, await activities(who), ['movies.watched_at'], before2);
  });

  it('a scrobble through the facade moves paused_at, then watched_at', async () => {
    const who = await someone();
    const was = await activities(who);
    const before = Date.now();
    expect((await trakt(app, who, 'POST', '/scrobble/pause', { movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 30 })).status).toBe(201);
    const paused = await activities(who);
    expectMoved(was, paused, ['movies.paused_at'], before);
    const before2 = Date.now();
    expect((await trakt(app, who, 'POST', '/scrobble/stop', { movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 90 })).status).toBe(201);
    // The watch, and the entry leaving Continue Watching (a delete: both paused_at).
    expectMoved(paused, await activities(who), ['movies.watched_at', 'movies.paused_at', 'episodes.paused_at'], before2);
  });

  it('favourites, show statuses and preferences move theirs', async () => {
    const who = await someone();
    const was = await activities(who);
    const before = Date.now();
    expect((await platform(app, who.token, 'POST', '/favourites', { type: 'show', movieDbId: FIRST_SHOW })).status).toBe(200);
    const fav = await activities(who);
    expectMoved(was, fav, ['shows.favorited_at', 'favorites.updated_at'], before);
    const before2 = Date.now();
    expect((await platform(app, who.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'dropped' })).status).toBe(200);
    const dropped = await activities(who);
    expect(Date.parse(group(dropped, 'shows').dropped_at!)).toBeGreaterThanOrEqual(before2 - 1000);
    const before3 = Date.now();
    expect((await platform(app, who.token, 'PATCH', '/me/preferences', { region: 'GB' })).status).toBe(200);
    expectMoved(dropped, await activities(who), ['account.settings_at'], before3);
  });

  it('a kind not among a resource\'s latest changes takes the resource\'s latest time (never an older one)', async () => {
    const who = await someone();
    await watch(app, who.userId, { type: 'movie', movieDbId: SPIRITED_AWAY }, new Date(Date.now() - 86_400_000));
    const movieWatched = group(await activities(who), 'movies').watched_at!;
    // More episode watches than the window of changes read per resource, in one write.
    const show = await titleId(app, { type: 'show', movieDbId: FIRST_SHOW });
    const [episode] = await resolveEpisodes(app.db.orm.em.fork(), [{ titleId: show, season: 1, episode: 1 }]);
    const watches = Array.from({ length: 55 }, (_, e) => ({ titleId: show, episodeId: episode!.id, season: 1, episode: 1, watchedAt: new Date(Date.now() - (e + 1) * 2 * 3_600_000), runtimeMinutes: null, source: 'api' as const, clientId: null }));
    await transaction(app.db.orm.em.fork(), (tx) => logWatches(tx, who.userId, watches));
    const now = await activities(who);
    expect(group(now, 'movies').watched_at).toBe(group(now, 'episodes').watched_at);
    expect(Date.parse(group(now, 'movies').watched_at!)).toBeGreaterThanOrEqual(Date.parse(movieWatched));
  });

  it('only the resources the token may read: others stay at the epoch', async () => {
    const who = await someone();
    await platform(app, who.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 7 });
    await platform(app, who.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY });
    const narrow = await activities({ clientId: who.clientId, token: await tokenWith(app, who, ['history:read']) });
    expect(group(narrow, 'movies').rated_at).toBe(EPOCH);
    expect(group(narrow, 'movies').watched_at).not.toBe(EPOCH);
  });

  it('401 without a token', async () => {
    const who = await someone();
    expect((await trakt(app, { clientId: who.clientId }, 'GET', '/sync/last_activities')).status).toBe(401);
  });
});
