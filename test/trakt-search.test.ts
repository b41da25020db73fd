// Trakt's search on the facade: text search of movies and shows over the catalog's search (types, paging,
// extended=full, unserved types answering nothing, the slug round trip into /movies/{slug}), and id
// lookups (trakt, imdb, tmdb, tvdb), the outside ids through the living catalog (a title the catalog
// lacks is fetched from the metadata provider, here the local fake).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { livingCatalogEnv, startFakeMovieDb, type FakeMovieDb } from './helpers/fake-movie-db.ts';
import { FIRST_SHOW, member, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { sql, titleId } from './helpers/title-fixtures.ts';
import { pagination, trakt } from './helpers/trakt.ts';

let app: TestApp;
let fake: FakeMovieDb;
let alice: Member;
let anon: { clientId: string };
let movieRowId: string;
let showRowId: string;
let showName: string;

type Json = Record<string, unknown>;
const keys = (o: unknown) => Object.keys(o as object).sort();
const SPIRITED = () => ({ title: 'Spirited Away', year: 2001, ids: { trakt: Number(movieRowId), slug: 'spirited-away-2001', imdb: 'tt0245429', tmdb: SPIRITED_AWAY } });

beforeAll(async () => {
  fake = await startFakeMovieDb();
  app = await startTestApp(livingCatalogEnv(fake, { CATALOG_FETCH_WAIT_MS: '30000' }));
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ['profile:read']);
  anon = { clientId: alice.clientId };
  movieRowId = await titleId(app, { type: 'movie', movieDbId: SPIRITED_AWAY });
  showRowId = await titleId(app, { type: 'show', movieDbId: FIRST_SHOW });
  const [row] = await sql<{ name: string }>(app, 'select name from title where id = $1', [showRowId]);
  showName = row!.name;
});
afterAll(async () => {
  await app?.stop();
  await fake?.close();
});

describe('GET /search/{type}?query=', () => {
  it('movie: [{type, score, movie}] by relevance, with the pagination headers', async () => {
    const res = await trakt(app, anon, 'GET', '/search/movie?query=spirited%20away');
    expect(res.status).toBe(200);
    const items = res.body as unknown as Json[];
    expect(items[0]).toStrictEqual({ type: 'movie', score: expect.any(Number), movie: SPIRITED() });
    expect(Number.isInteger(items[0]!.score)).toBe(true);
    for (const item of items) expect(keys(item)).toEqual(['movie', 'score', 'type']);
    const scores = items.map((i) => i.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(pagination(res)).toEqual({ page: 1, limit: 10, pageCount: Math.max(1, Math.ceil(items.length / 10)), itemCount: items.length });
  });

  it('the slug round trip: a result\'s slug names the same title in /movies/{slug}', async () => {
    const res = await trakt(app, anon, 'GET', '/search/movie?query=spirited');
    const [first] = res.body as unknown as Json[];
    const ids = (first!.movie as Json).ids as Json;
    const again = await trakt(app, anon, 'GET', `/movies/${ids.slug as string}`);
    expect(again.status).toBe(200);
    expect(again.body).toStrictEqual(first!.movie);
  });

  it('show, and movie,show together; extended=full adds the details', async () => {
    const shows = await trakt(app, anon, 'GET', `/search/show?query=${encodeURIComponent(showName)}&extended=full`);
    expect(shows.status).toBe(200);
    const [first] = shows.body as unknown as Json[];
    expect(first).toMatchObject({ type: 'show', show: { title: showName, ids: { trakt: Number(showRowId), tmdb: FIRST_SHOW } } });
    expect(keys(first!.show)).toContain('aired_episodes');
    expect(keys(first!.show)).toContain('first_aired');
    const both = await trakt(app, anon, 'GET', `/search/movie,show?query=${encodeURIComponent(showName)}`);
    expect(both.status).toBe(200);
    expect((both.body as unknown as Json[]).some((i) => i.type === 'show' && (i.show as Json).title === showName)).toBe(true);
    for (const item of both.body as unknown as Json[]) expect(keys(item)).toEqual([item.type as string, 'score', 'type'].sort());
  });

  it('pages: limit 1, page 2 is the second result', async () => {
    const all = (await trakt(app, anon, 'GET', '/search/movie,show?query=a')).body as unknown as Json[];
    expect(all.length).toBeGreaterThan(2);
    const res = await trakt(app, anon, 'GET', '/search/movie,show?query=a&page=2&limit=1');
    expect(res.status).toBe(200);
    expect(pagination(res)).toEqual({ page: 2, limit: 1, pageCount: all.length, itemCount: all.length });
    expect(res.body).toStrictEqual([all[1]]);
  });

  it('person, list and episode: the service has none to find, an empty list', async () => {
    for (const type of ['person', 'list', 'episode', 'person,list']) {
      const res = await trakt(app, anon, 'GET', `/search/${type}?query=spirited`);
      expect(res.status, type).toBe(200);
      expect(res.body).toEqual([]);
      expect(pagination(res)).toEqual({ page: 1, limit: 10, pageCount: 1, itemCount: 0 });
    }
    const mixed = await trakt(app, anon, 'GET', '/search/movie,person?query=spirited%20away');
    expect((mixed.body as unknown as Json[])[0]).toMatchObject({ type: 'movie', movie: SPIRITED() });
  });

  it('400 without a query, 404 for a type Trakt does not have', async () => {
    for (const path of ['/search/movie', '/search/movie?query=%20']) {
      const res = await trakt(app, anon, 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect((await trakt(app, anon, 'GET', '/search/film?query=x')).status).toBe(404);
  });
});

describe('GET /search/{id_type}/{id}', () => {
  it('trakt, imdb and tmdb find the movie', async () => {
    for (const path of [`/search/trakt/${movieRowId}?type=movie`, '/search/imdb/tt0245429', `/search/tmdb/${SPIRITED_AWAY}?type=movie`]) {
      const res = await trakt(app, anon, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toStrictEqual([{ type: 'movie', score: 1000, movie: SPIRITED() }]);
      expect(pagination(res)).toEqual({ page: 1, limit: 10, pageCount: 1, itemCount: 1 });
    }
  });

  it('trakt without a type: every kind of record with that id (titles and episodes number apart)', async () => {
    const [ep] = await sql<{ id: string }>(app, 'select id from episode where id = $1', [movieRowId]);
    const res = await trakt(app, anon, 'GET', `/search/trakt/${movieRowId}`);
    expect(res.status).toBe(200);
    expect((res.body as unknown as Json[]).map((i) => i.type)).toEqual(ep ? ['movie', 'episode'] : ['movie']);
  });

  it('type narrows: a movie\'s id asked as a show finds nothing', async () => {
    const res = await trakt(app, anon, 'GET', `/search/trakt/${movieRowId}?type=show`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('trakt with type=episode finds an episode by its row id, with its show; extended=full details both', async () => {
    const [ep] = await sql<{ id: string }>(app, 'select id from episode where title_id = $1 and season_number = 1 and episode_number = 2', [showRowId]);
    const res = await trakt(app, anon, 'GET', `/search/trakt/${ep!.id}?type=episode`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([
      {
        type: 'episode',
        score: 1000,
        episode: { season: 1, number: 2, title: expect.any(String), ids: { trakt: Number(ep!.id), tvdb: null, imdb: null, tmdb: null } },
        show: { title: showName, year: expect.any(Number), ids: expect.objectContaining({ trakt: Number(showRowId), tmdb: FIRST_SHOW }) },
      },
    ]);
    const full = await trakt(app, anon, 'GET', `/search/trakt/${ep!.id}?type=episode&extended=full`);
    const [item] = full.body as unknown as Json[];
    expect(keys(item!.episode)).toContain('first_aired');
    expect(keys(item!.show)).toContain('aired_episodes');
  });

  it('tmdb and tvdb fetch a show the catalog lacks from the metadata provider', async () => {
    fake.show({ id: 8_200_001, name: 'Fetched Lookup Show', firstAirDate: '2020-02-02', tvdbId: 9_200_001, imdbId: 'tt8200001', seasons: [{ number: 1, episodes: [{ number: 1, name: 'One', airDate: '2020-02-02' }] }] });
    const res = await trakt(app, anon, 'GET', '/search/tvdb/9200001');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual([
      { type: 'show', score: 1000, show: { title: 'Fetched Lookup Show', year: 2020, ids: { trakt: expect.any(Number), slug: 'fetched-lookup-show-2020', tvdb: 9_200_001, imdb: 'tt8200001', tmdb: 8_200_001, tvrage: null } } },
    ]);
    // Stored now: the same show by its movie database id and its slug, without the provider.
    const byTmdb = await trakt(app, anon, 'GET', '/search/tmdb/8200001?type=show');
    expect(byTmdb.body).toStrictEqual(res.body);
    expect((await trakt(app, anon, 'GET', '/shows/fetched-lookup-show-2020')).status).toBe(200);
  });

  it('an id nothing has: an empty list', async () => {
    for (const path of ['/search/tmdb/6999999?type=movie', '/search/imdb/tt6999999?type=movie', '/search/trakt/999999999', '/search/imdb/not-an-id']) {
      const res = await trakt(app, anon, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual([]);
    }
  });

  it('404 for an id type Trakt does not have, or a bad type', async () => {
    expect((await trakt(app, anon, 'GET', '/search/rottentomatoes/1')).status).toBe(404);
    expect((await trakt(app, anon, 'GET', `/search/trakt/${movieRowId}?type=film`)).status).toBe(404);
  });
});
