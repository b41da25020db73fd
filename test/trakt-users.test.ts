// Trakt's users endpoints over HTTP: GET /users/settings, GET /users/{me|username} (extended=full) and
// GET /users/{id}/stats, with exact key sets and types; a private profile or an unknown username is 404
// to everyone but its owner; stats come from the kept figures after platform writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { trakt } from './helpers/trakt.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
let carol: Member;
const em = () => app.db.orm.em.fork();
const keys = (o: unknown) => Object.keys(o as object).sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROFILE_KEYS = ['deleted', 'director', 'ids', 'name', 'private', 'username', 'vip', 'vip_ep'];
const FULL_KEYS = [...PROFILE_KEYS, 'about', 'age', 'gender', 'images', 'joined_at', 'location', 'vip_og', 'vip_years'].sort();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice', ['profile:read', 'history:read', 'history:write', 'ratings:read', 'ratings:write']);
  bob = await member(app, 'bob', ['profile:read']);
  carol = await member(app, 'carol', ['profile:read']);
  await query(em(), { text: `update app_user set profile_privacy = 'private', bio = 'Quiet' where id = $1`, params: [carol.userId] });
  await query(em(), { text: `update app_user set bio = 'Films, mostly' where id = $1`, params: [alice.userId] });
});
afterAll(() => app?.stop());

describe('GET /users/settings', () => {
  it('answers Trakt\'s settings shape for the signed-in user', async () => {
    const res = await trakt(app, alice, 'GET', '/users/settings');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['account', 'connections', 'limits', 'permissions', 'sharing_text', 'user']);
    const user = res.body.user as Record<string, unknown>;
    expect(keys(user)).toEqual([...FULL_KEYS, 'dob', 'vip_cover_image'].sort());
    expect(user).toMatchObject({ username: 'alice', private: false, deleted: false, vip: false, vip_ep: false, director: false, about: 'Films, mostly', vip_og: false, vip_years: 0, dob: null });
    expect(user.ids).toEqual({ slug: 'alice', trakt: null, uuid: alice.userId });
    expect(user.joined_at).toMatch(ISO);
    expect(user.images).toEqual({ avatar: { full: expect.any(String) } });
    expect(res.body.account).toEqual({ timezone: 'UTC', date_format: 'dmy', time_24hr: true, cover_image: null, token: null, display_ads: false });
    expect(res.body.limits).toEqual({ list: { count: 10_000, item_count: 10_000 }, watchlist: { item_count: 10_000 }, favorites: { item_count: 10_000 } });
    expect(res.body.permissions).toEqual({ commenting: false, liking: true, following: false });
    expect(keys(res.body.sharing_text)).toEqual(['rated', 'watched', 'watching']);
  });

  it('a private profile reads itself as private; 401 without a token; 403 without profile:read', async () => {
    expect(((await trakt(app, carol, 'GET', '/users/settings')).body.user as Record<string, unknown>).private).toBe(true);
    expect((await trakt(app, { clientId: alice.clientId }, 'GET', '/users/settings')).status).toBe(401);
    const noProfile = await tokenWith(app, alice, ['history:read']);
    const res = await trakt(app, { ...alice, token: noProfile }, 'GET', '/users/settings');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  });
});

describe('GET /users/{id}', () => {
  it('me, a username in any case, and without a token: the profile; extended=full adds the account\'s facts', async () => {
    const me = await trakt(app, alice, 'GET', '/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ username: 'alice', private: false, deleted: false, name: expect.any(String), vip: false, vip_ep: false, director: false, ids: { slug: 'alice' } });
    const byName = await trakt(app, { clientId: bob.clientId }, 'GET', '/users/ALICE');
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(me.body);
    const full = await trakt(app, bob, 'GET', '/users/alice?extended=full');
    expect(keys(full.body)).toEqual(FULL_KEYS);
    expect(full.body).toMatchObject({ about: 'Films, mostly', location: null, gender: null, age: null, vip_og: false, vip_years: 0 });
    expect(full.body.joined_at).toMatch(ISO);
  });

  it('a private profile or an unknown username is 404 to others; its owner reads it; /users/me without a token is 401', async () => {
    for (const path of ['/users/carol', '/users/nobody-here']) {
      const res = await trakt(app, bob, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
    const own = await trakt(app, carol, 'GET', '/users/carol?extended=full');
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ username: 'carol', private: true, about: 'Quiet' });
    expect((await trakt(app, { clientId: bob.clientId }, 'GET', '/users/me')).status).toBe(401);
  });
});

describe('GET /users/{id}/stats', () => {
  const STATS_KEYS = ['episodes', 'movies', 'network', 'ratings', 'seasons', 'shows'];

  it('counts what the platform recorded, from the kept figures, in Trakt\'s shape', async () => {
    const at = '2026-01-10T20:00:00.000Z';
    expect((await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: at })).status).toBe(200);
    expect((await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-11T20:00:00.000Z' })).status).toBe(200);
    expect((await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: at })).status).toBe(200);
    expect((await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 })).status).toBe(200);
    expect((await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, rating: 7 })).status).toBe(200);
    expect((await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, rating: 6 })).status).toBe(200);

    const res = await trakt(app, alice, 'GET', '/users/me/stats');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(STATS_KEYS);
    const b = res.body as Record<string, Record<string, unknown>>;
    expect(keys(b.movies)).toEqual(['collected', 'comments', 'minutes', 'plays', 'ratings', 'watched']);
    // Minutes as every figure counts them: the episode's runtime, else the show's; the movie's twice.
    const [runtimes] = await query<{ movie: number; episode: number }>(em(), {
      text: `select (select runtime_minutes from title where type = 'movie' and movie_db_id = $1) as movie,
        (select coalesce(e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0) from episode e join title t on t.id = e.title_id
          where t.type = 'show' and t.movie_db_id = $2 and e.season_number = 1 and e.episode_number = 1) as episode`,
      params: [SPIRITED_AWAY, FIRST_SHOW],
    });
    expect(runtimes!.movie).toBeGreaterThan(0);
    expect(b.movies).toEqual({ plays: 2, watched: 1, minutes: 2 * runtimes!.movie, ratings: 1, collected: 0, comments: 0 });
    expect(b.shows).toEqual({ watched: 1, collected: 0, ratings: 1, comments: 0 });
    expect(b.seasons).toEqual({ ratings: 0, comments: 0 });
    expect(b.episodes).toEqual({ plays: 1, watched: 1, minutes: runtimes!.episode, ratings: 1, collected: 0, comments: 0 });
    expect(b.network).toEqual({ friends: 0, followers: 0, following: 0 });
    expect(b.ratings).toEqual({ total: 3, distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0 } });

    // A public profile's figures are public (as the platform's public profile shows them).
    const other = await trakt(app, { clientId: bob.clientId }, 'GET', '/users/alice/stats');
    expect(other.status).toBe(200);
    expect(other.body).toEqual(res.body);
  });

  it('your own: history and ratings count by the token\'s scopes; 403 without profile:read; 404 for a private or unknown user', async () => {
    const profileOnly = await tokenWith(app, alice, ['profile:read']);
    const res = await trakt(app, { ...alice, token: profileOnly }, 'GET', '/users/me/stats');
    expect(res.status).toBe(200);
    expect(res.body.movies).toMatchObject({ plays: 0, watched: 0, minutes: 0, ratings: 0 });
    expect((res.body.ratings as Record<string, unknown>).total).toBe(0);
    const none = await tokenWith(app, alice, ['history:read']);
    expect((await trakt(app, { ...alice, token: none }, 'GET', '/users/me/stats')).status).toBe(403);
    expect((await trakt(app, bob, 'GET', '/users/carol/stats')).status).toBe(404);
    expect((await trakt(app, bob, 'GET', '/users/nobody-here/stats')).status).toBe(404);
    expect((await trakt(app, carol, 'GET', '/users/carol/stats')).status).toBe(200);
  });
});
