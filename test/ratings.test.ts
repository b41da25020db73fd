// Ratings, favourites and statuses over HTTP: each scope of a rating, favourites, show statuses (movie
// rules included), the page envelope of /me/ratings, /me/favourites and /me/show-statuses with its
// filters and counts, the exact item shape and its nulls, scopes, error codes, and change records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
let anime: { type: 'show'; movieDbId: number };
const em = () => app.db.orm.em.fork();
const ALL = ['ratings:read', 'ratings:write'];

const ITEM_KEYS = ['backdropPath', 'episode', 'episodeTitle', 'favouritedAt', 'id', 'isFavourite', 'kind', 'mediaSource', 'movieDbId', 'posterPath', 'ratedAt', 'rating', 'scope', 'season', 'showStatus', 'sourceId', 'stillPath', 'title', 'updatedAt', 'year'];
const PAGE_KEYS = ['counts', 'hasMore', 'items', 'page', 'pageSize', 'total'];
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ALL);
  bob = await member(app, 'bob', ALL);
  // The test catalog has no anime: the third synthetic show plays one.
  await query(em(), { text: `update title set is_anime = true, category = 'anime' where type = 'show' and movie_db_id = $1`, params: [FIRST_SHOW + 2] });
  anime = { type: 'show', movieDbId: FIRST_SHOW + 2 };
});
afterAll(() => app?.stop());

async function sequentially<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  for (const task of tasks) out.push(await task());
  return out;
}

describe('POST /ratings and DELETE /ratings/{id}', () => {
  it('rates a movie (scope title): the exact item, nulls where the scope has nothing', async () => {
    const res = await platform(app, alice.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ITEM_KEYS);
    expect(res.body).toEqual({
      id: expect.any(Number),
      movieDbId: SPIRITED_AWAY,
      kind: 'movie',
      mediaSource: 'movie_db',
      sourceId: SPIRITED_AWAY,
      title: 'Spirited Away',
      posterPath: expect.any(String),
      backdropPath: expect.any(String),
      year: 2001,
      scope: 'title',
      season: null,
      episode: null,
      stillPath: null,
      episodeTitle: null,
      rating: 9,
      isFavourite: false,
      showStatus: null,
      ratedAt: ISO,
      favouritedAt: null,
      updatedAt: ISO,
    });
  });

  it('rates a show (series), a season and an episode; rating again updates the same item', async () => {
    const series = await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, rating: 7 });
    expect(series.body).toMatchObject({ scope: 'series', kind: 'show', season: null, episode: null, stillPath: null, episodeTitle: null, rating: 7 });
    const season = await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, rating: 6 });
    expect(season.body).toMatchObject({ scope: 'season', season: 1, episode: null, stillPath: null, episodeTitle: null, rating: 6 });
    const episode = await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 3, rating: 10 });
    expect(episode.body).toMatchObject({ scope: 'episode', season: 1, episode: 3, stillPath: expect.any(String), episodeTitle: expect.any(String), rating: 10 });
    expect((episode.body.episodeTitle as string).length).toBeGreaterThan(0);
    const again = await platform(app, alice.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 3, rating: 1 });
    expect(again.body).toMatchObject({ id: episode.body.id, rating: 1 });
  });

  it('takes 1 and 10; refuses 0, 11, 5.5, "5", a missing rating or extra fields with 400', async () => {
    for (const rating of [1, 10]) expect((await platform(app, bob.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating })).status).toBe(200);
    const bad = [
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 0 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 11 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 5.5 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: '5' },
      { type: 'movie', movieDbId: SPIRITED_AWAY },
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 5, scope: 'title' },
      { type: 'movie', movieDbId: SPIRITED_AWAY, season: 1, rating: 5 },
      { type: 'show', movieDbId: FIRST_SHOW, episode: 1, rating: 5 },
      { type: 'film', movieDbId: SPIRITED_AWAY, rating: 5 },
      { type: 'movie', movieDbId: 0, rating: 5 },
    ];
    for (const body of bad) expectError(await platform(app, bob.token, 'POST', '/ratings', body), 400, 'invalid_request');
  });

  it('404 not_found for an unknown title, season or episode', async () => {
    expectError(await platform(app, bob.token, 'POST', '/ratings', { type: 'movie', movieDbId: 999_999, rating: 5 }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'POST', '/ratings', { type: 'show', movieDbId: SPIRITED_AWAY, rating: 5 }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 77, rating: 5 }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 999, rating: 5 }), 404, 'not_found');
  });

  it('DELETE removes the user\'s rating (then 404); someone else\'s is 404; a bad id 400', async () => {
    const carol = await member(app, 'carol', ALL);
    const rated = await platform(app, carol.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 4 });
    const id = rated.body.id as number;
    expectError(await platform(app, bob.token, 'DELETE', `/ratings/${id}`), 404, 'not_found');
    expect(await platform(app, carol.token, 'DELETE', `/ratings/${id}`)).toMatchObject({ status: 200, body: { id, deleted: true } });
    expectError(await platform(app, carol.token, 'DELETE', `/ratings/${id}`), 404, 'not_found');
    expectError(await platform(app, carol.token, 'DELETE', '/ratings/x'), 400, 'invalid_request');
    expect((await platform(app, carol.token, 'GET', '/me/ratings')).body).toMatchObject({ items: [], total: 0 });
    const changes = await changesOf(app, carol.userId);
    expect(changes.map((c) => [c.resource, c.resource_id, c.op])).toEqual([['ratings', String(id), 'upsert'], ['ratings', String(id), 'delete']]);
    expect(changes[0]!.data).toEqual(rated.body);
  });
});

describe('favourites', () => {
  it('POST marks (idempotently) and answers the favourite item; DELETE unmarks; both record their change', async () => {
    const dave = await member(app, 'dave', ALL);
    await platform(app, dave.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, rating: 8 });
    const fav = await platform(app, dave.token, 'POST', '/favourites', { type: 'show', movieDbId: FIRST_SHOW });
    expect(fav.status).toBe(200);
    expect(Object.keys(fav.body).sort()).toEqual(ITEM_KEYS);
    expect(fav.body).toEqual({
      id: expect.any(Number),
      movieDbId: FIRST_SHOW,
      kind: 'show',
      mediaSource: 'movie_db',
      sourceId: FIRST_SHOW,
      title: expect.any(String),
      posterPath: expect.any(String),
      backdropPath: expect.any(String),
      year: expect.any(Number),
      scope: 'series',
      season: null,
      episode: null,
      stillPath: null,
      episodeTitle: null,
      rating: 8,
      isFavourite: true,
      showStatus: null,
      ratedAt: ISO,
      favouritedAt: ISO,
      updatedAt: ISO,
    });
    const again = await platform(app, dave.token, 'POST', '/favourites', { type: 'show', movieDbId: FIRST_SHOW });
    expect(again.body).toEqual(fav.body);
    const ratings = await platform(app, dave.token, 'GET', '/me/ratings');
    expect((ratings.body.items as Record<string, unknown>[])[0]).toMatchObject({ isFavourite: true, favouritedAt: fav.body.favouritedAt });

    const off = await platform(app, dave.token, 'DELETE', `/favourites/show/${FIRST_SHOW}`);
    expect(off).toMatchObject({ status: 200, body: { type: 'show', movieDbId: FIRST_SHOW, isFavourite: false } });
    expect(Object.keys(off.body).sort()).toEqual(['isFavourite', 'movieDbId', 'type']);
    expect((await platform(app, dave.token, 'DELETE', `/favourites/show/${FIRST_SHOW}`)).status).toBe(200);
    expect((await platform(app, dave.token, 'GET', '/me/favourites')).body).toMatchObject({ items: [], total: 0 });

    const changes = (await changesOf(app, dave.userId)).map((c) => [c.resource, c.resource_id, c.op]);
    expect(changes).toEqual([
      ['ratings', expect.any(String), 'upsert'],
      ['favourites', `show:${FIRST_SHOW}`, 'upsert'],
      ['ratings', expect.any(String), 'upsert'],
      ['favourites', `show:${FIRST_SHOW}`, 'delete'],
      ['ratings', expect.any(String), 'upsert'],
    ]);
    const log = await changesOf(app, dave.userId);
    expect(log[1]!.data).toEqual(fav.body);
    expect(log[4]!.data).toMatchObject({ isFavourite: false, favouritedAt: null });
  });

  it('404 for an unknown title; 400 for a bad type or id', async () => {
    expectError(await platform(app, bob.token, 'POST', '/favourites', { type: 'movie', movieDbId: 999_999 }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'DELETE', '/favourites/show/999999'), 404, 'not_found');
    for (const body of [{ type: 'book', movieDbId: 1 }, { type: 'movie', movieDbId: '129' }, { type: 'movie', movieDbId: 0 }, { type: 'movie' }, { type: 'movie', movieDbId: SPIRITED_AWAY, note: 1 }]) {
      expectError(await platform(app, bob.token, 'POST', '/favourites', body), 400, 'invalid_request');
    }
    expectError(await platform(app, bob.token, 'DELETE', '/favourites/book/1'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'DELETE', '/favourites/movie/abc'), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'DELETE', '/favourites/movie/0'), 400, 'invalid_request');
  });
});

describe('show statuses', () => {
  it('PUT sets each status of a show and answers the status item; DELETE clears it; changes are recorded', async () => {
    const erin = await member(app, 'erin', ALL);
    for (const status of ['planned', 'watching', 'paused', 'completed', 'dropped']) {
      const res = await platform(app, erin.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(ITEM_KEYS);
      expect(res.body).toMatchObject({ movieDbId: FIRST_SHOW, scope: 'series', showStatus: status, rating: null, ratedAt: null, isFavourite: false, favouritedAt: null });
    }
    const cleared = await platform(app, erin.token, 'DELETE', `/show-status/show/${FIRST_SHOW}`);
    expect(cleared).toMatchObject({ status: 200, body: { type: 'show', movieDbId: FIRST_SHOW, showStatus: null } });
    expect(Object.keys(cleared.body).sort()).toEqual(['movieDbId', 'showStatus', 'type']);
    const changes = (await changesOf(app, erin.userId)).map((c) => [c.resource, c.resource_id, c.op, c.data?.showStatus ?? null]);
    expect(changes).toEqual([
      ...['planned', 'watching', 'paused', 'completed', 'dropped'].map((s) => ['show_status', `show:${FIRST_SHOW}`, 'upsert', s]),
      ['show_status', `show:${FIRST_SHOW}`, 'delete', null],
    ]);
  });

  it('movies take planned and completed only; bad statuses and bodies are 400; unknown titles 404', async () => {
    expect((await platform(app, bob.token, 'PUT', `/show-status/movie/${SPIRITED_AWAY}`, { status: 'planned' })).body).toMatchObject({ scope: 'title', showStatus: 'planned' });
    expect((await platform(app, bob.token, 'PUT', `/show-status/movie/${SPIRITED_AWAY}`, { status: 'completed' })).body).toMatchObject({ showStatus: 'completed' });
    for (const status of ['watching', 'paused', 'dropped']) expectError(await platform(app, bob.token, 'PUT', `/show-status/movie/${SPIRITED_AWAY}`, { status }), 400, 'invalid_request');
    for (const body of [{ status: 'binging' }, {}, { status: null }, { status: 'planned', note: 'x' }]) {
      expectError(await platform(app, bob.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, body), 400, 'invalid_request');
    }
    expectError(await platform(app, bob.token, 'PUT', '/show-status/show/999999', { status: 'planned' }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'DELETE', '/show-status/movie/999999'), 404, 'not_found');
  });
});

describe('GET /me/ratings, /me/favourites, /me/show-statuses', () => {
  let gus: Member;
  beforeAll(async () => {
    gus = await member(app, 'gus', ALL);
    await platform(app, gus.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 });
    await platform(app, gus.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, rating: 7 });
    await platform(app, gus.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, rating: 6 });
    await platform(app, gus.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, rating: 5 });
    await platform(app, gus.token, 'POST', '/ratings', { ...anime, rating: 8 });
    await platform(app, gus.token, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY });
    await platform(app, gus.token, 'POST', '/favourites', anime);
    await platform(app, gus.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'watching' });
    await platform(app, gus.token, 'PUT', `/show-status/show/${FIRST_SHOW + 1}`, { status: 'planned' });
  });

  it('ratings: the page envelope, newest first, counts by kind, defaults page 1 and pageSize 50', async () => {
    const res = await platform(app, gus.token, 'GET', '/me/ratings');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PAGE_KEYS);
    expect(res.body).toMatchObject({ total: 5, page: 1, pageSize: 50, hasMore: false, counts: { movie: 1, show: 3, anime: 1 } });
    expect(Object.keys(res.body.counts as object).sort()).toEqual(['anime', 'movie', 'show']);
    const items = res.body.items as Record<string, unknown>[];
    expect(items.map((i) => [i.scope, i.rating])).toEqual([['series', 8], ['episode', 5], ['season', 6], ['series', 7], ['title', 9]]);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    expect(items[0]).toMatchObject({ kind: 'anime', isFavourite: true });
    expect(items[1]).toMatchObject({ showStatus: 'watching', isFavourite: false });
    expect(items[4]).toMatchObject({ isFavourite: true, favouritedAt: ISO, showStatus: null });
  });

  it('ratings: filters type and scope (counts ignore type), pages with hasMore', async () => {
    expect((await platform(app, gus.token, 'GET', '/me/ratings?type=show')).body).toMatchObject({ total: 3, counts: { movie: 1, show: 3, anime: 1 } });
    expect((await platform(app, gus.token, 'GET', '/me/ratings?type=anime')).body).toMatchObject({ total: 1, items: [{ kind: 'anime' }] });
    const seasons = await platform(app, gus.token, 'GET', '/me/ratings?scope=season');
    expect(seasons.body).toMatchObject({ total: 1, counts: { movie: 0, show: 1, anime: 0 }, items: [{ scope: 'season' }] });
    const p1 = await platform(app, gus.token, 'GET', '/me/ratings?pageSize=2');
    const p3 = await platform(app, gus.token, 'GET', '/me/ratings?pageSize=2&page=3');
    expect(p1.body).toMatchObject({ page: 1, pageSize: 2, total: 5, hasMore: true });
    expect(p3.body).toMatchObject({ page: 3, pageSize: 2, total: 5, hasMore: false });
    expect((p3.body.items as unknown[]).length).toBe(1);
    expect((await platform(app, gus.token, 'GET', '/me/ratings?page=9')).body).toMatchObject({ items: [], hasMore: false, total: 5 });
  });

  it('favourites: title-level items with the title rating and status', async () => {
    const res = await platform(app, gus.token, 'GET', '/me/favourites');
    expect(Object.keys(res.body).sort()).toEqual(PAGE_KEYS);
    expect(res.body).toMatchObject({ total: 2, page: 1, pageSize: 50, hasMore: false, counts: { movie: 1, show: 0, anime: 1 } });
    const items = res.body.items as Record<string, unknown>[];
    expect(items.map((i) => [i.kind, i.rating, i.isFavourite])).toEqual([['anime', 8, true], ['movie', 9, true]]);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    expect((await platform(app, gus.token, 'GET', '/me/favourites?scope=title')).body).toMatchObject({ total: 1, items: [{ movieDbId: SPIRITED_AWAY }] });
    expect((await platform(app, gus.token, 'GET', '/me/favourites?type=movie')).body).toMatchObject({ total: 1, items: [{ movieDbId: SPIRITED_AWAY }] });
  });

  it('show statuses: filter by status (planning is `planned`)', async () => {
    const all = await platform(app, gus.token, 'GET', '/me/show-statuses');
    expect(all.body).toMatchObject({ total: 2, counts: { movie: 0, show: 2, anime: 0 } });
    const planned = await platform(app, gus.token, 'GET', '/me/show-statuses?status=planned');
    expect(planned.body).toMatchObject({ total: 1, items: [{ movieDbId: FIRST_SHOW + 1, showStatus: 'planned', rating: null }] });
  });

  it('page and pageSize bounds, bad filters and unknown parameters are 400', async () => {
    expect((await platform(app, gus.token, 'GET', '/me/ratings?pageSize=100')).status).toBe(200);
    expect((await platform(app, gus.token, 'GET', '/me/ratings?pageSize=1')).status).toBe(200);
    for (const q of ['pageSize=0', 'pageSize=101', 'page=0', 'page=1.5', 'type=book', 'scope=movie', 'cursor=x']) {
      expectError(await platform(app, gus.token, 'GET', `/me/ratings?${q}`), 400, 'invalid_request');
    }
    expectError(await platform(app, gus.token, 'GET', '/me/favourites?scope=episode'), 400, 'invalid_request');
    expectError(await platform(app, gus.token, 'GET', '/me/show-statuses?status=binging'), 400, 'invalid_request');
  });

  it('every item of a page is the newest change-feed record of its resource id', async () => {
    const newest = new Map<string, Record<string, unknown> | null>();
    for (const c of await changesOf(app, gus.userId)) newest.set(`${c.resource}/${c.resource_id}`, c.data);
    for (const item of (await platform(app, gus.token, 'GET', '/me/ratings')).body.items as Record<string, unknown>[]) expect(newest.get(`ratings/${item.id}`)).toEqual(item);
    for (const item of (await platform(app, gus.token, 'GET', '/me/favourites')).body.items as Record<string, unknown>[]) {
      expect(newest.get(`favourites/${item.scope === 'title' ? 'movie' : 'show'}:${item.movieDbId}`)).toEqual(item);
    }
    for (const item of (await platform(app, gus.token, 'GET', '/me/show-statuses')).body.items as Record<string, unknown>[]) {
      expect(newest.get(`show_status/show:${item.movieDbId}`)).toEqual(item);
    }
  });
});

describe('concurrent writes', () => {
  it('leave the newest change record of every item equal to what a read answers', async () => {
    const hal = await member(app, 'hal', ALL);
    const statuses = ['planned', 'watching', 'paused', 'completed', 'dropped'];
    const writes = Array.from({ length: 15 }, (_, i) => () => {
      if (i % 3 === 0) return platform(app, hal.token, 'POST', '/ratings', { type: 'show', movieDbId: FIRST_SHOW, rating: (i % 10) + 1 });
      if (i % 3 === 1) return platform(app, hal.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: statuses[i % 5] });
      return i % 2 === 0 ? platform(app, hal.token, 'POST', '/favourites', { type: 'show', movieDbId: FIRST_SHOW }) : platform(app, hal.token, 'DELETE', `/favourites/show/${FIRST_SHOW}`);
    });
    // Concurrent on PostgreSQL. The embedded database's socket interleaves concurrent connections'
    // protocol messages (wrong answers, hangs; reported), and runs one transaction at a time anyway.
    const results = servicesMode ? await Promise.all(writes.map((w) => w())) : await sequentially(writes);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const newest = new Map<string, Record<string, unknown> | null>();
    for (const c of await changesOf(app, hal.userId)) newest.set(`${c.resource}/${c.resource_id}`, c.data);
    const [rating] = (await platform(app, hal.token, 'GET', '/me/ratings')).body.items as Record<string, unknown>[];
    expect(newest.get(`ratings/${rating!.id}`)).toEqual(rating);
    const [status] = (await platform(app, hal.token, 'GET', '/me/show-statuses')).body.items as Record<string, unknown>[];
    expect(newest.get(`show_status/show:${FIRST_SHOW}`)).toEqual(status);
    const [favourite] = (await platform(app, hal.token, 'GET', '/me/favourites')).body.items as Record<string, unknown>[];
    expect(newest.get(`favourites/show:${FIRST_SHOW}`)).toEqual(favourite ?? null);
  });
});

describe('scopes', () => {
  it('reads need ratings:read, writes ratings:write; no token is 401', async () => {
    const readOnly = await tokenWith(app, alice, ['ratings:read']);
    const writeOnly = await tokenWith(app, alice, ['ratings:write']);
    for (const path of ['/me/ratings', '/me/favourites', '/me/show-statuses']) {
      expectError(await platform(app, writeOnly, 'GET', path), 403, 'insufficient_scope', { required_scope: 'ratings:read' });
      expectError(await platform(app, null, 'GET', path), 401, 'invalid_token');
    }
    for (const [method, path, body] of [
      ['POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 5 }],
      ['DELETE', '/ratings/1', undefined],
      ['POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }],
      ['DELETE', `/favourites/movie/${SPIRITED_AWAY}`, undefined],
      ['PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'planned' }],
      ['DELETE', `/show-status/show/${FIRST_SHOW}`, undefined],
    ] as const) {
      expectError(await platform(app, readOnly, method, path, body), 403, 'insufficient_scope', { required_scope: 'ratings:write' });
      expectError(await platform(app, null, method, path, body), 401, 'invalid_token');
    }
  });
});
