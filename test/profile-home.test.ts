// The deprecated profile home over real HTTP: the exact shape (lists as list summaries without
// description, the 20 most recent watches newest first), its Deprecation, Sunset and Link headers, the
// OpenAPI document marking it deprecated, and its scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEpisodes, resolveTitle } from '../src/core/catalog/resolve.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches, type WatchInput } from '../src/core/library/history-write.ts';
import { profileHomeLists } from '../src/core/lists/summaries.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let user: Member;
let other: Member;
const em = () => app.db.orm.em.fork();

const LIST_KEYS = ['externalSource', 'id', 'isCollaborative', 'isDynamicList', 'isPublic', 'isWatchlist', 'itemCount', 'name', 'ownerUsername', 'previewPosters'];
const WATCH_KEYS = ['backdropUrl', 'episode', 'episodeTitle', 'id', 'mediaSource', 'movieDbId', 'name', 'posterUrl', 'season', 'type'];

type Watch = Record<string, unknown>;
let logged: { id: string; at: number }[] = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  user = await member(app, 'homebody', ['profile:read', 'lists:read', 'lists:write', 'history:read']);
  other = await member(app, 'neighbour', ['profile:read', 'history:read']);
  const movie = (await resolveTitle(em(), { type: 'movie', movieDbId: SPIRITED_AWAY }))!;
  const show = (await resolveTitle(em(), { type: 'show', movieDbId: FIRST_SHOW }))!;
  const episodes = await resolveEpisodes(em(), Array.from({ length: 12 }, (_, i) => ({ titleId: show.id, season: 1 + Math.floor(i / 6), episode: 1 + (i % 6) })));
  expect(episodes.every((e) => e !== null)).toBe(true);
  // 25 watches two hours apart, alternating a movie and the show's next episode (12 episodes used at most).
  const start = Date.parse('2026-05-01T00:00:00Z');
  const watches: WatchInput[] = [];
  logged = [];
  for (let i = 0; i < 25; i++) {
    const at = start + i * 2 * 3_600_000;
    const ep = i % 2 === 1 ? episodes[Math.floor(i / 2) % 12] : null;
    watches.push({ titleId: ep ? show.id : movie.id, episodeId: ep?.id ?? null, season: ep?.season ?? null, episode: ep?.episode ?? null, watchedAt: new Date(at), runtimeMinutes: null, source: 'api', clientId: null });
    logged.push({ id: '', at });
  }
  const results = await transaction(em(), (tx) => logWatches(tx, user.userId, watches));
  results.forEach((r, i) => (logged[i]!.id = r.id));
  expect(results.every((r) => r.status === 'inserted')).toBe(true);
  await transaction(em(), (tx) => logWatches(tx, other.userId, [{ ...watches[0]!, watchedAt: new Date('2026-06-01T00:00:00Z') }]));
});
afterAll(() => app?.stop());

describe('GET /profile/home', () => {
  it('answers the exact shape: the 20 most recent watches, newest first', async () => {
    const res = await platform(app, user.token, 'GET', '/profile/home');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['lists', 'recentWatchHistory']);
    const recent = res.body.recentWatchHistory as Watch[];
    expect(recent).toHaveLength(20);
    const newest20 = [...logged].sort((a, b) => b.at - a.at).slice(0, 20);
    expect(recent.map((w) => w.id)).toEqual(newest20.map((w) => w.id));
    for (const w of recent) expect(Object.keys(w).sort()).toEqual(WATCH_KEYS);
  });

  it('shows a movie with season 0, episode 0 and episodeTitle "", an episode with its numbers and title', async () => {
    const recent = (await platform(app, user.token, 'GET', '/profile/home')).body.recentWatchHistory as Watch[];
    const movieWatch = recent.find((w) => w.type === 'movie')!;
    expect(movieWatch).toEqual({
      id: expect.stringMatching(/^\d+$/),
      movieDbId: SPIRITED_AWAY,
      type: 'movie',
      name: 'Spirited Away',
      posterUrl: expect.stringMatching(/^https?:\/\/.+\/w500\/.+\.jpg$/),
      backdropUrl: expect.any(String),
      season: 0,
      episode: 0,
      episodeTitle: '',
      mediaSource: 'movie_db',
    });
    const episodeWatch = recent.find((w) => w.type === 'show')!;
    const [stored] = await query<{ name: string; season_number: number; episode_number: number }>(em(), {
      text: `select e.name, e.season_number, e.episode_number from watch_history w join episode e on e.id = w.episode_id where w.id = $1`,
      params: [episodeWatch.id],
    });
    expect(episodeWatch).toEqual({
      id: expect.stringMatching(/^\d+$/),
      movieDbId: FIRST_SHOW,
      type: 'show',
      name: expect.any(String),
      posterUrl: expect.any(String),
      backdropUrl: expect.any(String),
      season: stored!.season_number,
      episode: stored!.episode_number,
      episodeTitle: stored!.name,
      mediaSource: 'movie_db',
    });
    expect(stored!.name).not.toBe('');
  });

  it('lists the user\'s lists as summaries without description', async () => {
    // Made through the lists API when that module is there; otherwise the profile home shows none.
    const created = await platform(app, user.token, 'POST', '/lists', { name: 'Comfort films', description: 'For rainy days', isPublic: false });
    const res = await platform(app, user.token, 'GET', '/profile/home');
    const lists = res.body.lists as Record<string, unknown>[];
    expect(lists).toEqual(await profileHomeLists(em(), user.userId, 20));
    if (created.status === 404) {
      expect(lists).toEqual([]);
      return;
    }
    expect(created.status).toBe(200);
    const mine = lists.find((l) => l.id === created.body.id);
    expect(mine).toBeDefined();
    expect(Object.keys(mine!).sort()).toEqual(LIST_KEYS);
    expect(mine).toMatchObject({ name: 'Comfort films', isPublic: false, isWatchlist: false, isDynamicList: false, externalSource: null, itemCount: 0, previewPosters: [] });
  });

  it('carries Deprecation (RFC 9745), Sunset (an HTTP date) and Link headers to its successors', async () => {
    const res = await platform(app, user.token, 'GET', '/profile/home');
    expect(res.headers.get('deprecation')).toBe('@1795305600');
    expect(new Date(1795305600 * 1000).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(res.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(new Date(res.headers.get('sunset')!).toUTCString()).toBe(res.headers.get('sunset'));
    const link = res.headers.get('link')!;
    expect(link.split(', ')).toEqual([
      `<${app.url}/api/platform/v1/me/lists>; rel="successor-version"`,
      `<${app.url}/api/platform/v1/me/history>; rel="successor-version"`,
      `<${app.url}/docs>; rel="deprecation"; type="text/html"`,
    ]);
  });

  it('is marked deprecated in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
    expect(doc.paths['/profile/home']?.get?.deprecated).toBe(true);
    expect(doc.paths['/me/community-stats']?.get?.deprecated).toBeUndefined();
  });

  it('shows lists only to a token with lists:read and watches only to one with history:read (profile:read alone: both empty)', async () => {
    const full = (await platform(app, user.token, 'GET', '/profile/home')).body as { lists: unknown[]; recentWatchHistory: unknown[] };
    expect(full.lists.length).toBeGreaterThan(0);
    expect(full.recentWatchHistory.length).toBeGreaterThan(0);
    const only = async (scopes: string[]) => (await platform(app, await tokenWith(app, user, scopes), 'GET', '/profile/home')).body;
    expect(await only(['profile:read'])).toEqual({ lists: [], recentWatchHistory: [] });
    expect(await only(['profile:read', 'lists:read'])).toEqual({ lists: full.lists, recentWatchHistory: [] });
    expect(await only(['profile:read', 'history:read'])).toEqual({ lists: [], recentWatchHistory: full.recentWatchHistory });
  });

  it('shows each user only their own watches', async () => {
    const recent = (await platform(app, other.token, 'GET', '/profile/home')).body.recentWatchHistory as Watch[];
    expect(recent).toHaveLength(1);
    expect(logged.map((w) => w.id)).not.toContain(recent[0]!.id);
  });

  it('needs profile:read and a token, and takes no parameters', async () => {
    const token = await tokenWith(app, user, ['history:read', 'lists:read']);
    expectError(await platform(app, token, 'GET', '/profile/home'), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    expectError(await platform(app, null, 'GET', '/profile/home'), 401, 'invalid_token');
    expectError(await platform(app, user.token, 'GET', '/profile/home?limit=5'), 400, 'invalid_request');
  });
});
