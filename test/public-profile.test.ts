// GET /api/public/v1/users/{username} over real HTTP: the exact shape, counts from real history, ratings,
// favourites and lists, the newest watches, public lists only (most liked first), case-insensitive
// usernames, and privacy: a private profile answers exactly as an unknown user (404 {message}). Rate
// limits are on here: the answers carry the public bucket's headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEpisodes, resolveTitles } from '../src/core/catalog/resolve.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import * as http from './helpers/http.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
const TOY_STORY = 862;
const HOUR = 3_600_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCOPES = ['profile:read', 'profile:write', 'ratings:write', 'lists:read', 'lists:write'];
const PROFILE_KEYS = ['avatarUrl', 'bio', 'displayName', 'favourites', 'joinedAt', 'lists', 'recentWatches', 'stats', 'username'];
const LIST_KEYS = ['description', 'externalSource', 'id', 'isCollaborative', 'isDynamicList', 'isPublic', 'isWatchlist', 'itemCount', 'likeCount', 'name', 'ownerUsername', 'previewPosters'];
const WATCH_KEYS = ['backdropUrl', 'episode', 'episodeTitle', 'id', 'mediaSource', 'movieDbId', 'name', 'posterUrl', 'season', 'type', 'watchedAt'];
const CATALOG_KEYS = [
  'ageRating', 'backdropPath', 'backdropUrl', 'category', 'communityRating', 'genres', 'id', 'isAnime', 'movieDbId', 'name', 'originalLanguage', 'overview',
  'popularity', 'posterColor', 'posterColorIsDark', 'posterPath', 'posterUrl', 'releaseDate', 'runtimeMinutes', 'type', 'year',
];

const get = (path: string) => http.call(app, `/api/public/v1${path}`);

/** A watch through the core write path, with a known runtime. */
async function logWatch(userId: string, type: 'movie' | 'show', movieDbId: number, at: Date, runtimeMinutes: number, season?: number, episode?: number) {
  const em = app.db.orm.em.fork();
  const [title] = await resolveTitles(em, [{ type, movieDbId }]);
  const [ep] = season === undefined ? [] : await resolveEpisodes(em, [{ titleId: title!.id, season, episode }]);
  const [result] = await transaction(em, (tx) =>
    logWatches(tx, userId, [{ titleId: title!.id, episodeId: ep?.id ?? null, season: season ?? null, episode: episode ?? null, watchedAt: at, runtimeMinutes, source: 'api', clientId: null }]),
  );
  return result!.id;
}

const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));

let watchIds: string[];
let publicOld: number;
let publicLiked: number;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'Alice_Pub', SCOPES);
  bob = await member(app, 'bob_pub', SCOPES);
  const now = Date.now();
  // Five watches: Spirited Away twice, Toy Story, two episodes; 50 minutes each: 250 minutes, 4 hours.
  watchIds = [
    await logWatch(alice.userId, 'movie', SPIRITED_AWAY, new Date(now - 50 * HOUR), 50),
    await logWatch(alice.userId, 'movie', SPIRITED_AWAY, new Date(now - 40 * HOUR), 50),
    await logWatch(alice.userId, 'movie', TOY_STORY, new Date(now - 30 * HOUR), 50),
    await logWatch(alice.userId, 'show', FIRST_SHOW, new Date(now - 20 * HOUR), 50, 1, 1),
    await logWatch(alice.userId, 'show', FIRST_SHOW, new Date(now - 10 * HOUR), 50, 1, 2),
  ];
  await call(alice, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 });
  await call(alice, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, rating: 7 });
  expect((await call(alice, 'POST', '/favourites', { type: 'movie', movieDbId: TOY_STORY })).status).toBe(200);
  expect((await call(alice, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY })).status).toBe(200);
  publicOld = (await call(alice, 'POST', '/lists', { name: 'Old favourites', isPublic: true })).body.id as number;
  await call(alice, 'POST', `/lists/${publicOld}/items`, { items: [{ type: 'movie', movieDbId: TOY_STORY }] });
  await call(alice, 'POST', '/lists', { name: 'Secret plans', isPublic: false });
  publicLiked = (await call(alice, 'POST', '/lists', { name: 'Ghibli', isPublic: true })).body.id as number;
  expect((await call(bob, 'POST', `/lists/${publicLiked}/like`)).status).toBe(200);
  expect((await call(alice, 'PATCH', '/me/profile', { displayName: 'Alice', bio: 'Watching everything.', avatarUrl: 'https://img.example/alice.png' })).status).toBe(200);
});
afterAll(() => app?.stop());

describe('GET /users/{username}', () => {
  it('answers exactly the public profile shape, with the public bucket\'s rate-limit headers', async () => {
    const res = await get('/users/Alice_Pub');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PROFILE_KEYS);
    expect(res.body).toMatchObject({ username: 'Alice_Pub', displayName: 'Alice', avatarUrl: 'https://img.example/alice.png', bio: 'Watching everything.', joinedAt: expect.stringMatching(ISO) });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(60);
    expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('counts the whole history, ratings, favourites and public lists', async () => {
    const { body } = await get('/users/Alice_Pub');
    expect(body.stats).toEqual({ moviesWatched: 2, showsWatched: 1, episodesWatched: 2, watches: 5, hoursWatched: 4, ratings: 2, favourites: 2, publicLists: 2 });
  });

  it('shows favourites as catalog items, most recently favourited first', async () => {
    const favourites = (await get('/users/Alice_Pub')).body.favourites as Array<Record<string, unknown>>;
    expect(favourites.map((f) => f.id)).toEqual([`movie-${SPIRITED_AWAY}`, `movie-${TOY_STORY}`]);
    for (const f of favourites) expect(Object.keys(f).sort()).toEqual(CATALOG_KEYS);
  });

  it('shows the newest watches first, movies with season 0 and episodes with their numbers', async () => {
    const watches = (await get('/users/Alice_Pub')).body.recentWatches as Array<Record<string, unknown>>;
    expect(watches.map((w) => w.id)).toEqual([...watchIds].reverse());
    for (const w of watches) expect(Object.keys(w).sort()).toEqual(WATCH_KEYS);
    expect(watches[0]).toMatchObject({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, mediaSource: 'movie_db', watchedAt: expect.stringMatching(ISO) });
    expect(typeof watches[0]!.episodeTitle).toBe('string');
    expect(watches[2]).toMatchObject({ type: 'movie', movieDbId: TOY_STORY, name: 'Toy Story', season: 0, episode: 0, episodeTitle: '' });
  });

  it('shows public lists only, most liked first, as list summaries with likeCount', async () => {
    const lists = (await get('/users/Alice_Pub')).body.lists as Array<Record<string, unknown>>;
    expect(lists.map((l) => [l.id, l.likeCount])).toEqual([[publicLiked, 1], [publicOld, 0]]);
    for (const l of lists) expect(Object.keys(l).sort()).toEqual(LIST_KEYS);
    expect(lists[1]).toMatchObject({ name: 'Old favourites', isPublic: true, ownerUsername: 'Alice_Pub', itemCount: 1, externalSource: null, description: '' });
  });

  it('finds the username regardless of case', async () => {
    const exact = await get('/users/Alice_Pub');
    const other = await get('/users/aLICE_pUB');
    expect(other.status).toBe(200);
    expect(other.body).toEqual(exact.body);
  });

  it('shows zeros and empty arrays for a user with nothing yet', async () => {
    const res = await get('/users/bob_pub');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      username: 'bob_pub', displayName: 'bob_pub', avatarUrl: null, bio: '',
      stats: { moviesWatched: 0, showsWatched: 0, episodesWatched: 0, watches: 0, hoursWatched: 0, ratings: 0, favourites: 0, publicLists: 0 },
      favourites: [], recentWatches: [], lists: [],
    });
  });

  it('answers a private profile exactly as an unknown username: 404 {message}', async () => {
    const carol = await member(app, 'carol_pub', SCOPES);
    expect((await call(carol, 'PATCH', '/me/profile', { privacy: 'private' })).status).toBe(200);
    const hidden = await get('/users/carol_pub');
    const unknown = await get('/users/carol_pubx');
    for (const res of [hidden, unknown]) {
      expect(res.status).toBe(404);
      expect(Object.keys(res.body)).toEqual(['message']);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    }
    expect(hidden.body.message).toBe((unknown.body.message as string).replace('carol_pubx', 'carol_pub'));
    // Public again: shown again at once.
    expect((await call(carol, 'PATCH', '/me/profile', { privacy: 'public' })).status).toBe(200);
    expect((await get('/users/carol_pub')).status).toBe(200);
  });

  it('refuses unknown query parameters with 400 {message}', async () => {
    const res = await get('/users/Alice_Pub?include=email');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['message']);
  });
});
