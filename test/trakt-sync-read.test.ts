// The Trakt-compatible facade's library reads: /sync/history, /sync/watched, /sync/ratings,
// /sync/watchlist, /sync/collection and /users/{id}/history, /watched, /ratings, /watchlist, over data
// written through the platform API: exact wire shapes, pagination headers, filters, and who may read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { pagination, trakt } from './helpers/trakt.ts';

const TOY_STORY = 862;
const SCOPES = ['history:read', 'history:write', 'ratings:read', 'ratings:write', 'lists:read', 'lists:write', 'collection:read', 'collection:write', 'profile:read', 'profile:write'];

let app: TestApp;
let alice: Member;
let carol: Member;

type Item = Record<string, unknown>;
const keys = (o: unknown) => Object.keys(o as object).sort();
const get = async (m: Pick<Member, 'token' | 'clientId'>, path: string) => {
  const res = await trakt(app, m, 'GET', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { body: res.body as unknown as Item[], res };
};

const MOVIE_KEYS = ['ids', 'title', 'year'];
const MOVIE_IDS = ['imdb', 'slug', 'tmdb', 'trakt'];
const SHOW_IDS = ['imdb', 'slug', 'tmdb', 'trakt', 'tvdb', 'tvrage'];
const EPISODE_KEYS = ['ids', 'number', 'season', 'title'];

function expectMovie(m: unknown, tmdb: number) {
  expect(keys(m)).toEqual(MOVIE_KEYS);
  const movie = m as { ids: Item; title: unknown; year: unknown };
  expect(keys(movie.ids)).toEqual(MOVIE_IDS);
  expect(movie.ids).toMatchObject({ tmdb, trakt: expect.any(Number), slug: expect.any(String) });
  expect(typeof movie.title).toBe('string');
  expect(typeof movie.year).toBe('number');
}

function expectShow(s: unknown, tmdb: number, extra: string[] = []) {
  expect(keys(s)).toEqual([...MOVIE_KEYS, ...extra].sort());
  const show = s as { ids: Item };
  expect(keys(show.ids)).toEqual(SHOW_IDS);
  expect(show.ids).toMatchObject({ tmdb, trakt: expect.any(Number) });
}

function expectEpisode(e: unknown, season: number, number: number) {
  expect(keys(e)).toEqual(EPISODE_KEYS);
  expect(e).toMatchObject({ season, number, title: expect.any(String), ids: { trakt: expect.any(Number), tvdb: null, imdb: null, tmdb: null } });
}

const log = (m: Member, body: Item) => ok(platform(app, m.token, 'POST', '/watch-history', body));

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', SCOPES);
  await member(app, 'bob', SCOPES);
  carol = await member(app, 'carol', SCOPES);
  expect((await platform(app, carol.token, 'PATCH', '/me/profile', { privacy: 'private' })).status).toBe(200);
  // Five entries, newest first: S1E2 (12th 12:00), the movie (12th 10:00), S1E1 (11th 12:00), the movie (11th 10:00), the movie (10th 10:00).
  for (const day of ['10', '11', '12']) await log(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: `2026-01-${day}T10:00:00Z` });
  await log(alice, { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: '2026-01-11T12:00:00Z' });
  await log(alice, { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: '2026-01-12T12:00:00Z' });
}, 120_000);
afterAll(() => app?.stop());

describe('history', () => {
  it('pages newest first with X-Pagination headers (page 2 of 3, five entries) in Trakt\'s shapes', async () => {
    const { body, res } = await get(alice, '/sync/history?page=2&limit=2');
    expect(pagination(res)).toEqual({ page: 2, limit: 2, pageCount: 3, itemCount: 5 });
    expect(body.map((i) => [i.type, i.watched_at])).toEqual([
      ['episode', '2026-01-11T12:00:00.000Z'],
      ['movie', '2026-01-11T10:00:00.000Z'],
    ]);
    const [episode, movie] = body as [Item, Item];
    expect(keys(episode)).toEqual(['action', 'episode', 'id', 'show', 'type', 'watched_at']);
    expect(episode).toMatchObject({ id: expect.any(Number), action: 'watch' });
    expectEpisode(episode.episode, 1, 1);
    expectShow(episode.show, FIRST_SHOW);
    expect(keys(movie)).toEqual(['action', 'id', 'movie', 'type', 'watched_at']);
    expectMovie(movie.movie, SPIRITED_AWAY);
    const last = await get(alice, '/sync/history?page=3&limit=2');
    expect(last.body.map((i) => i.watched_at)).toEqual(['2026-01-10T10:00:00.000Z']);
    expect(pagination(last.res)).toMatchObject({ page: 3, pageCount: 3, itemCount: 5 });
  });

  it('filters by type, by a title\'s Trakt id, a season or an episode, and by start_at / end_at', async () => {
    const movies = await get(alice, '/sync/history/movies');
    expect(movies.body.map((i) => i.type)).toEqual(['movie', 'movie', 'movie']);
    expect(pagination(movies.res)).toEqual({ page: 1, limit: 10, pageCount: 1, itemCount: 3 });
    for (const type of ['shows', 'episodes', 'seasons']) {
      const shows = await get(alice, `/sync/history/${type}`);
      expect(shows.body.map((i) => (i.episode as Item).number)).toEqual([2, 1]);
      expect(pagination(shows.res).itemCount).toBe(2);
    }
    const all = (await get(alice, '/sync/history')).body;
    const showId = ((all[0]!.show as Item).ids as Item).trakt as number;
    const movieId = ((all[1]!.movie as Item).ids as Item).trakt as number;
    const episodeId = ((all[0]!.episode as Item).ids as Item).trakt as number;
    expect(pagination((await get(alice, `/sync/history/shows/${showId}`)).res).itemCount).toBe(2);
    expect(pagination((await get(alice, `/sync/history/movies/${movieId}`)).res).itemCount).toBe(3);
    const one = await get(alice, `/sync/history/episodes/${episodeId}`);
    expect(one.body.map((i) => (i.episode as Item).number)).toEqual([2]);
    expect(pagination(one.res).itemCount).toBe(1);
    // Within one day's end and the next day's start; and over a whole day with partial days at both ends.
    const narrow = await get(alice, '/sync/history?start_at=2026-01-11T11:00:00Z&end_at=2026-01-12T11:00:00Z');
    expect(narrow.body.map((i) => i.watched_at)).toEqual(['2026-01-12T10:00:00.000Z', '2026-01-11T12:00:00.000Z']);
    expect(pagination(narrow.res).itemCount).toBe(2);
    const wide = await get(alice, '/sync/history/movies?start_at=2026-01-10T09:00:00Z&end_at=2026-01-12T11:00:00Z');
    expect(wide.body.map((i) => i.watched_at)).toEqual(['2026-01-12T10:00:00.000Z', '2026-01-11T10:00:00.000Z', '2026-01-10T10:00:00.000Z']);
    expect(pagination(wide.res).itemCount).toBe(3);
    const since = await get(alice, '/sync/history?start_at=2026-01-11T00:00:00Z');
    expect(pagination(since.res).itemCount).toBe(4);
  });

  it('answers 400 for a bad start_at, 404 for another type or an unknown id, 401 without a token, 403 without history:read', async () => {
    expect((await trakt(app, alice, 'GET', '/sync/history?start_at=yesterday')).status).toBe(400);
    expect((await trakt(app, alice, 'GET', '/sync/history?page=x')).status).toBe(400);
    expect((await trakt(app, alice, 'GET', '/sync/history/books')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/sync/history/movies/999999999')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/sync/history/episodes/999999999')).status).toBe(404);
    expect((await trakt(app, { clientId: alice.clientId }, 'GET', '/sync/history')).status).toBe(401);
    const narrow = await member(app, 'dave', ['ratings:read']);
    const res = await trakt(app, narrow, 'GET', '/sync/history');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  });

  it('/users/{me|own username}/history is the same; another user is 404 (unknown, private) or 403 (public)', async () => {
    const sync = (await get(alice, '/sync/history?limit=5')).body;
    for (const id of ['me', 'alice', 'ALICE']) {
      const { body, res } = await get(alice, `/users/${id}/history?limit=5`);
      expect(body).toEqual(sync);
      expect(pagination(res).itemCount).toBe(5);
    }
    expect((await get(alice, '/users/me/history/movies?limit=1&page=2')).body.map((i) => i.watched_at)).toEqual(['2026-01-11T10:00:00.000Z']);
    expect(pagination((await get(alice, '/users/me/history/episodes')).res).itemCount).toBe(2);
    for (const id of ['nobody-here', 'carol']) {
      const res = await trakt(app, alice, 'GET', `/users/${id}/history`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
    expect((await trakt(app, alice, 'GET', '/users/bob/history')).status).toBe(403);
    expect((await trakt(app, { clientId: alice.clientId }, 'GET', '/users/bob/history')).status).toBe(403);
    expect((await trakt(app, { clientId: alice.clientId }, 'GET', '/users/me/history')).status).toBe(401);
  });

  it('shows an entry logged, and no longer one removed, through the platform API', async () => {
    const logged = await log(alice, { type: 'movie', movieDbId: TOY_STORY, watchedAt: '2026-01-13T10:00:00Z' });
    const id = (logged.items as Item[])[0]!.id as number;
    const first = (await get(alice, '/sync/history?limit=1')).body[0]!;
    expect(first).toMatchObject({ id, type: 'movie', watched_at: '2026-01-13T10:00:00.000Z' });
    expectMovie(first.movie, TOY_STORY);
    expect((await platform(app, alice.token, 'DELETE', `/watch-history/${id}`)).status).toBe(200);
    const after = await get(alice, '/sync/history?limit=1');
    expect(after.body[0]!.id).not.toBe(id);
    expect(pagination(after.res).itemCount).toBe(5);
  });
});

describe('watched', () => {
  it('movies: plays and the latest watch per movie', async () => {
    for (const path of ['/sync/watched/movies', '/users/me/watched/movies']) {
      const { body } = await get(alice, path);
      expect(body).toHaveLength(1);
      expect(keys(body[0])).toEqual(['last_updated_at', 'last_watched_at', 'movie', 'plays', 'reset_at']);
      expect(body[0]).toMatchObject({ plays: 3, last_watched_at: '2026-01-12T10:00:00.000Z', reset_at: null });
      expectMovie(body[0]!.movie, SPIRITED_AWAY);
    }
  });

  it('shows: plays, aired episodes and the watched episodes by season; extended=noseasons drops them', async () => {
    const { body } = await get(alice, '/sync/watched/shows');
    expect(body).toHaveLength(1);
    expect(keys(body[0])).toEqual(['last_updated_at', 'last_watched_at', 'plays', 'reset_at', 'seasons', 'show']);
    expect(body[0]).toMatchObject({
      plays: 2,
      last_watched_at: '2026-01-12T12:00:00.000Z',
      seasons: [{ number: 1, episodes: [{ number: 1, plays: 1, last_watched_at: '2026-01-11T12:00:00.000Z' }, { number: 2, plays: 1, last_watched_at: '2026-01-12T12:00:00.000Z' }] }],
    });
    expectShow(body[0]!.show, FIRST_SHOW, ['aired_episodes']);
    expect((body[0]!.show as Item).aired_episodes).toEqual(expect.any(Number));
    const bare = (await get(alice, '/users/alice/watched/shows?extended=noseasons')).body;
    expect(keys(bare[0])).toEqual(['last_updated_at', 'last_watched_at', 'plays', 'reset_at', 'show']);
    const paged = await get(alice, '/sync/watched/movies?page=1&limit=1');
    expect(pagination(paged.res)).toEqual({ page: 1, limit: 1, pageCount: 1, itemCount: 1 });
    expect((await trakt(app, alice, 'GET', '/sync/watched/episodes')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/nobody-here/watched/movies')).status).toBe(404);
  });
});

describe('ratings', () => {
  beforeAll(async () => {
    for (const body of [
      { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 },
      { type: 'show', movieDbId: FIRST_SHOW, rating: 8 },
      { type: 'show', movieDbId: FIRST_SHOW, season: 1, rating: 7 },
      { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, rating: 10 },
    ]) await ok(platform(app, alice.token, 'POST', '/ratings', body));
  });

  it('answers every rating, newest first, in Trakt\'s shapes (no pagination asked: no headers)', async () => {
    const { body, res } = await get(alice, '/sync/ratings');
    expect(res.headers.get('x-pagination-page')).toBeNull();
    expect(body.map((i) => [i.type, i.rating])).toEqual([['episode', 10], ['season', 7], ['show', 8], ['movie', 9]]);
    const [episode, season, show, movie] = body as [Item, Item, Item, Item];
    expect(keys(episode)).toEqual(['episode', 'rated_at', 'rating', 'show', 'type']);
    expectEpisode(episode.episode, 1, 1);
    expectShow(episode.show, FIRST_SHOW);
    expect(keys(season)).toEqual(['rated_at', 'rating', 'season', 'show', 'type']);
    expect(season.season).toEqual({ number: 1, ids: { trakt: expect.any(Number), tvdb: null, tmdb: null, tvrage: null } });
    expect(keys(show)).toEqual(['rated_at', 'rating', 'show', 'type']);
    expect(keys(movie)).toEqual(['movie', 'rated_at', 'rating', 'type']);
    expectMovie(movie.movie, SPIRITED_AWAY);
    expect(typeof movie.rated_at).toBe('string');
    expect(new Date(movie.rated_at as string).toISOString()).toBe(movie.rated_at);
  });

  it('filters by type and by rating; pages when asked', async () => {
    expect((await get(alice, '/sync/ratings/movies')).body.map((i) => i.type)).toEqual(['movie']);
    expect((await get(alice, '/users/me/ratings/seasons')).body.map((i) => i.type)).toEqual(['season']);
    expect((await get(alice, '/sync/ratings/all/9,10')).body.map((i) => i.rating)).toEqual([10, 9]);
    expect((await get(alice, '/sync/ratings/episodes/10')).body.map((i) => i.type)).toEqual(['episode']);
    expect((await get(alice, '/sync/ratings/movies/10')).body).toEqual([]);
    const page = await get(alice, '/sync/ratings?page=2&limit=3');
    expect(pagination(page.res)).toEqual({ page: 2, limit: 3, pageCount: 2, itemCount: 4 });
    expect(page.body.map((i) => i.type)).toEqual(['movie']);
    const byValue = await get(alice, '/users/alice/ratings/all/7,8,9?page=1&limit=2');
    expect(pagination(byValue.res)).toEqual({ page: 1, limit: 2, pageCount: 2, itemCount: 3 });
    expect(byValue.body.map((i) => i.rating)).toEqual([7, 8]);
    expect((await trakt(app, alice, 'GET', '/sync/ratings/movies/11')).status).toBe(400);
    expect((await trakt(app, alice, 'GET', '/sync/ratings/books')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/carol/ratings')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/bob/ratings')).status).toBe(403);
  });
});

describe('watchlist', () => {
  beforeAll(async () => {
    const list = await ok(platform(app, alice.token, 'GET', '/me/watchlist'));
    const items = [{ type: 'movie', movieDbId: SPIRITED_AWAY }, { type: 'show', movieDbId: FIRST_SHOW }, { type: 'show', movieDbId: FIRST_SHOW + 1 }];
    await ok(platform(app, alice.token, 'POST', `/lists/${list.id as number}/items`, { items }));
  });

  it('answers the items in rank order with X-Sort-By / X-Sort-How, filtered by type, paged when asked', async () => {
    const { body, res } = await get(alice, '/sync/watchlist');
    expect(res.headers.get('x-sort-by')).toBe('rank');
    expect(res.headers.get('x-sort-how')).toBe('asc');
    expect(res.headers.get('x-pagination-page')).toBeNull();
    expect(body.map((i) => [i.rank, i.type])).toEqual([[1, 'movie'], [2, 'show'], [3, 'show']]);
    expect(keys(body[0])).toEqual(['id', 'listed_at', 'movie', 'notes', 'rank', 'type']);
    expect(body[0]).toMatchObject({ id: expect.any(Number), notes: null, listed_at: expect.stringMatching(/Z$/) });
    expectMovie(body[0]!.movie, SPIRITED_AWAY);
    expect(keys(body[1])).toEqual(['id', 'listed_at', 'notes', 'rank', 'show', 'type']);
    expect((await get(alice, '/sync/watchlist/movies')).body.map((i) => i.rank)).toEqual([1]);
    const shows = await get(alice, '/users/me/watchlist/shows/added?page=2&limit=1');
    expect(shows.res.headers.get('x-sort-by')).toBe('added');
    expect(pagination(shows.res)).toEqual({ page: 2, limit: 1, pageCount: 2, itemCount: 2 });
    expect(shows.body.map((i) => [i.rank, i.type])).toEqual([[3, 'show']]);
    const all = await get(alice, '/sync/watchlist/movie,show/rank/desc?page=1&limit=2');
    expect(pagination(all.res)).toEqual({ page: 1, limit: 2, pageCount: 2, itemCount: 3 });
    expect(all.res.headers.get('x-sort-how')).toBe('desc');
    expect((await trakt(app, alice, 'GET', '/sync/watchlist/books')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/nobody-here/watchlist')).status).toBe(404);
  });
});

describe('collection', () => {
  beforeAll(async () => {
    await ok(platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray' }));
    await ok(platform(app, alice.token, 'POST', '/me/collection', { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 1 }));
  });

  it('movies: collected_at, updated_at and the movie; metadata with extended=metadata', async () => {
    const { body } = await get(alice, '/sync/collection/movies');
    expect(body).toHaveLength(1);
    expect(keys(body[0])).toEqual(['collected_at', 'movie', 'updated_at']);
    expectMovie(body[0]!.movie, SPIRITED_AWAY);
    const full = (await get(alice, '/sync/collection/movies?extended=metadata')).body;
    expect(full[0]!.metadata).toEqual({ media_type: 'bluray', resolution: 'hd_1080p', hdr: null, audio: null, audio_channels: null, '3d': false });
  });

  it('shows: the collected seasons with their episodes', async () => {
    const { body } = await get(alice, '/sync/collection/shows');
    expect(body).toHaveLength(1);
    expect(keys(body[0])).toEqual(['last_collected_at', 'last_updated_at', 'seasons', 'show']);
    expectShow(body[0]!.show, FIRST_SHOW);
    const seasons = body[0]!.seasons as { number: number; episodes: Item[] }[];
    expect(seasons.map((s) => s.number)).toEqual([1]);
    expect(seasons[0]!.episodes.length).toBeGreaterThan(0);
    expect(keys(seasons[0]!.episodes[0])).toEqual(['collected_at', 'number']);
    expect((await trakt(app, alice, 'GET', '/sync/collection/episodes')).status).toBe(404);
  });
});
