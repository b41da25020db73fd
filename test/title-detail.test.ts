// GET /title/{type}/{id}: the exact shape of the title detail, the private fields with each read scope
// alone (the rule of core/actor-visibility.ts), the interaction's rating per `scope`, community and
// external ratings, recommendations, season stats, and every bad input's code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_FIELD_SCOPES } from '../src/core/actor-visibility.ts';
import { addCollectionItem } from '../src/core/collection/write.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { setFeatured } from '../src/core/lists/featured.ts';
import { addTitles } from '../src/core/lists/items.ts';
import { setLiked } from '../src/core/lists/likes.ts';
import { createList } from '../src/core/lists/write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { rate, setTitleState, sql, titleId, watch } from './helpers/title-fixtures.ts';

const TOY_STORY = 862;
const SPARSE = 5_000_000; // a title the catalog knows little of: no release date, genres or votes (made below)
const movie = { type: 'movie' as const, movieDbId: SPIRITED_AWAY };
const show = { type: 'show' as const, movieDbId: FIRST_SHOW };
const ALL_READ = ['profile:read', 'ratings:read', 'history:read', 'lists:read', 'collection:read'];

let app: TestApp;
let alice: Member;
let aliceAll: string;
const watches: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ['profile:read']);
  aliceAll = await tokenWith(app, alice, ALL_READ);
  await sql(app, `insert into title (type, movie_db_id, category, name, year, source) values ('movie', $1, 'movie', 'Sparse', 1999, 'test')`, [SPARSE]);
  const bob = await member(app, 'bob', ['profile:read']);
  watches.first = await watch(app, alice.userId, movie, new Date('2026-01-01T20:00:00Z'));
  watches.second = await watch(app, alice.userId, movie, new Date('2026-03-05T21:30:00Z'));
  await rate(app, alice.userId, movie, 9, 'title');
  await rate(app, bob.userId, movie, 6, 'title');
  await setTitleState(app, alice.userId, movie, { favourite: true });
  // Show: three episodes of season 1 (one twice), season ratings, status watching.
  await watch(app, alice.userId, show, new Date('2026-02-01T10:00:00Z'), 1, 1);
  await watch(app, alice.userId, show, new Date('2026-02-02T10:00:00Z'), 1, 2);
  await watch(app, alice.userId, show, new Date('2026-02-03T10:00:00Z'), 1, 2);
  await watch(app, alice.userId, show, new Date('2026-02-04T10:00:00Z'), 1, 3);
  await rate(app, alice.userId, show, 7, 'series');
  await rate(app, alice.userId, show, 8, 'season', 1);
  await rate(app, alice.userId, show, 5, 'season', 2);
  await rate(app, alice.userId, show, 10, 'episode', 1, 1);
  await setTitleState(app, alice.userId, show, { status: 'watching' });
});
afterAll(() => app?.stop());

const get = (token: string | null, path: string) => platform(app, token, 'GET', path);

const TOP_KEYS = ['collectionStatus', 'communityRating', 'externalRatings', 'featuredLists', 'interaction', 'title', 'userLists', 'watchHistory'];

describe('title detail shape', () => {
  it('answers a movie with every field, exactly, and the full user state with all read scopes', async () => {
    const res = await get(aliceAll, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(TOP_KEYS);
    const title = res.body.title as Record<string, unknown>;
    expect(Object.keys(title).sort()).toEqual(
      ['ageRating', 'backdropUrl', 'category', 'communityRating', 'genres', 'isAnime', 'movieDbId', 'name', 'originalLanguage', 'overview', 'posterUrl',
        'recommendations', 'releaseDate', 'runtimeMinutes', 'seasonStats', 'status', 'tagline', 'type', 'year'].sort(),
    );
    expect(title).toMatchObject({
      movieDbId: SPIRITED_AWAY,
      type: 'movie',
      category: 'movie',
      isAnime: false,
      name: 'Spirited Away',
      tagline: 'The tunnel led Chihiro to a mysterious town...',
      year: 2001,
      releaseDate: '2001-07-20',
      communityRating: 8.3,
      genres: expect.arrayContaining(['Fantasy', 'Animation']),
      originalLanguage: 'ja',
      status: 'Released',
      runtimeMinutes: 125,
      seasonStats: [],
    });
    expect(title.posterUrl).toMatch(/^https?:\/\/.+\/w500\/ynXoOxmDHNQ4UAy0oU6avW71HVW\.jpg$/);
    expect(typeof title.backdropUrl).toBe('string');
    expect(typeof title.overview).toBe('string');
    expect(res.body.interaction).toEqual({ watchedAt: '2026-03-05T21:30:00.000Z', rating: 9, isFavourite: true, showStatus: null });
    expect(res.body.watchHistory).toEqual([
      { id: Number(watches.second), watchedAt: '2026-03-05T21:30:00.000Z', season: null, episode: null },
      { id: Number(watches.first), watchedAt: '2026-01-01T20:00:00.000Z', season: null, episode: null },
    ]);
    expect(res.body.userLists).toEqual([]);
    expect(res.body.collectionStatus).toEqual({ owned: false, formats: [], items: [] });
    expect(res.body.featuredLists).toEqual([]);
    expect(res.body.communityRating).toEqual({ average: 7.5, count: 2 });
    expect(res.body.externalRatings).toEqual({ ratings: [{ source: 'movie_db', value: 8.3, votes: 3968 }] });
  });

  it('recommends similar titles of the same type, never the title itself', async () => {
    const res = await get(aliceAll, `/title/movie/${SPIRITED_AWAY}`);
    const recs = (res.body.title as { recommendations: Record<string, unknown>[] }).recommendations;
    expect(recs.length).toBeGreaterThan(0);
    expect(recs.length).toBeLessThanOrEqual(10);
    for (const r of recs) {
      expect(Object.keys(r).sort()).toEqual(['isAnime', 'movieDbId', 'name', 'posterUrl', 'type', 'year']);
      expect(r.type).toBe('movie');
      expect(r.movieDbId).not.toBe(SPIRITED_AWAY);
    }
    expect(recs[0]).toMatchObject({ movieDbId: TOY_STORY, name: 'Toy Story' });
  });

  it('answers a show with season stats (counts, aired, the user\'s watched episodes) and the show status', async () => {
    const res = await get(aliceAll, `/title/show/${FIRST_SHOW}`);
    expect(res.status).toBe(200);
    const title = res.body.title as Record<string, unknown> & { seasonStats: Record<string, unknown>[] };
    expect(title).toMatchObject({ movieDbId: FIRST_SHOW, type: 'show', category: 'show', episodeRunTimeMinutes: expect.any(Number), seasonsCount: expect.any(Number), episodesCount: expect.any(Number) });
    expect(title).not.toHaveProperty('runtimeMinutes');
    const seasons = await sql<{ season_number: number; name: string; n: number; aired: number }>(
      app,
      `select e.season_number, s.name, count(*)::int as n, count(*) filter (where e.air_date <= (now() at time zone 'utc')::date)::int as aired
       from episode e join title t on t.id = e.title_id join season s on s.title_id = t.id and s.season_number = e.season_number
       where t.type = 'show' and t.movie_db_id = $1 group by e.season_number, s.name order by e.season_number`,
      [FIRST_SHOW],
    );
    expect(title.seasonStats).toEqual(
      seasons.map((s) => ({
        seasonNumber: s.season_number,
        name: s.name,
        overview: expect.any(String),
        airDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        posterUrl: expect.any(String),
        episodeCount: s.n,
        airedEpisodes: s.aired,
        watchedEpisodes: s.season_number === 1 ? 3 : 0,
      })),
    );
    expect(title.seasonsCount).toBe(seasons.length);
    expect(res.body.interaction).toEqual({ watchedAt: '2026-02-04T10:00:00.000Z', rating: 7, isFavourite: false, showStatus: 'watching' });
    expect((res.body.watchHistory as unknown[]).length).toBe(4);
    expect((res.body.watchHistory as unknown[])[0]).toEqual({ id: expect.any(Number), watchedAt: '2026-02-04T10:00:00.000Z', season: 1, episode: 3 });
  });

  it('leaves out optional fields the catalog does not know, and externalRatings is null without votes', async () => {
    const res = await get(aliceAll, `/title/movie/${SPARSE}`);
    expect(res.status).toBe(200);
    const title = res.body.title as Record<string, unknown>;
    expect(Object.keys(title).sort()).toEqual(
      ['ageRating', 'backdropUrl', 'category', 'communityRating', 'genres', 'isAnime', 'movieDbId', 'name', 'originalLanguage', 'overview', 'posterUrl',
        'recommendations', 'seasonStats', 'status', 'tagline', 'type', 'year'].sort(),
    );
    expect(title).toMatchObject({ name: 'Sparse', tagline: '', posterUrl: '', backdropUrl: '', genres: [], communityRating: 0 });
    expect(title.recommendations).toEqual([]);
    expect(res.body.externalRatings).toBeNull();
    expect(res.body.communityRating).toEqual({ average: null, count: 0 });
    expect(res.body.interaction).toEqual({ watchedAt: null, rating: null, isFavourite: false, showStatus: null });
    expect(res.body.watchHistory).toEqual([]);
  });

  it('is the same with region, which is validated and reserved', async () => {
    const a = await get(aliceAll, `/title/movie/${SPIRITED_AWAY}`);
    const b = await get(aliceAll, `/title/movie/${SPIRITED_AWAY}?region=de`);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });
});

describe('interaction rating per scope', () => {
  const rating = async (path: string) => ((await get(aliceAll, path)).body.interaction as { rating: number | null }).rating;
  it('title and series both mean the title as a whole; season and episode the mean of those ratings', async () => {
    expect(await rating(`/title/show/${FIRST_SHOW}`)).toBe(7);
    expect(await rating(`/title/show/${FIRST_SHOW}?scope=series`)).toBe(7);
    expect(await rating(`/title/show/${FIRST_SHOW}?scope=title`)).toBe(7);
    expect(await rating(`/title/show/${FIRST_SHOW}?scope=season`)).toBe(6.5);
    expect(await rating(`/title/show/${FIRST_SHOW}?scope=episode`)).toBe(10);
    expect(await rating(`/title/movie/${SPIRITED_AWAY}?scope=title`)).toBe(9);
    expect(await rating(`/title/movie/${SPIRITED_AWAY}?scope=episode`)).toBeNull();
  });
});

describe('private fields follow the token\'s read scopes', () => {
  const NULLED = { interaction: null, watchHistory: [], userLists: null, collectionStatus: null };

  it('profile:read alone: every private field is null (watchHistory empty); public parts stay', async () => {
    const res = await get(alice.token, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(TOP_KEYS);
    expect(res.body).toMatchObject(NULLED);
    expect(res.body.communityRating).toEqual({ average: 7.5, count: 2 });
    expect(res.body.featuredLists).toEqual([]);
  });

  it.each(Object.entries(PRIVATE_FIELD_SCOPES))('%s appears with %s alone, and nothing else does', async (field, scope) => {
    const token = await tokenWith(app, alice, ['profile:read', scope]);
    const res = await get(token, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.status).toBe(200);
    const shown: Record<string, unknown> = {
      interaction: { watchedAt: '2026-03-05T21:30:00.000Z', rating: 9, isFavourite: true, showStatus: null },
      watchHistory: [expect.objectContaining({ id: Number(watches.second) }), expect.objectContaining({ id: Number(watches.first) })],
      userLists: [],
      collectionStatus: { owned: false, formats: [], items: [] },
    };
    expect(res.body).toEqual({ ...res.body, ...NULLED, [field]: shown[field] });
  });

  it('season stats carry the watched counts only with history:read', async () => {
    const res = await get(alice.token, `/title/show/${FIRST_SHOW}`);
    const stats = (res.body.title as { seasonStats: { watchedEpisodes: unknown }[] }).seasonStats;
    expect(stats.length).toBeGreaterThan(0);
    expect(stats.every((s) => s.watchedEpisodes === null)).toBe(true);
  });

  it('shows another user nothing of alice', async () => {
    const carol = await member(app, 'carol', ALL_READ);
    const res = await get(carol.token, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.body).toMatchObject({ interaction: { watchedAt: null, rating: null, isFavourite: false, showStatus: null }, watchHistory: [] });
  });
});

describe('lists and collection in the title detail', () => {
  it('lists every list of the user with containsItemId, and the collection status, exactly', async () => {
    const dave = await member(app, 'dave', ['profile:read', 'lists:read', 'collection:read']);
    const em = app.db.orm.em.fork();
    const holding = await createList(em, dave.userId, { name: 'Ghibli', description: 'Favourites', isPublic: true });
    const other = await createList(em, dave.userId, { name: 'Other', description: '', isPublic: false });
    const movieId = await titleId(app, movie);
    const [added] = await transaction(em, (tx) => addTitles(tx, String(holding.id), [movieId], dave.userId));
    const owned = await addCollectionItem(em, dave.userId, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray' });
    const res = await get(dave.token, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.status).toBe(200);
    const lists = res.body.userLists as Record<string, unknown>[];
    expect(lists.map((l) => [l.id, l.containsItemId])).toEqual([
      [holding.id, Number(added!.id)],
      [other.id, null],
    ]);
    for (const l of lists) {
      expect(Object.keys(l).sort()).toEqual(
        ['containsItemId', 'createdAt', 'description', 'id', 'isCollaborative', 'isDynamicList', 'isFeatured', 'isPublic', 'isWatchlist', 'itemBreakdown', 'itemCount',
          'lastSyncedAt', 'name', 'ownerUsername', 'previewPosters'].sort(),
      );
    }
    expect(lists[0]).toMatchObject({ name: 'Ghibli', isPublic: true, itemCount: 1, itemBreakdown: { movies: 1, shows: 0, anime: 0 }, ownerUsername: 'dave' });
    expect(res.body.collectionStatus).toEqual({ owned: true, formats: ['bluray'], items: [{ id: owned.id, format: 'bluray', season: expect.any(Number) }] });
    expect(res.body.interaction).toBeNull();
    expect(res.body.watchHistory).toEqual([]);
    // The same list as the list API shows it (the detail reads it inside its one statement, as JSON).
    const own = await get(dave.token, `/lists/${holding.id}`);
    const summary = ((await get(dave.token, '/me/lists?limit=100')).body.items as Record<string, unknown>[]).find((l) => l.id === holding.id)!;
    expect(lists[0]).toMatchObject({ createdAt: own.body.createdAt, lastSyncedAt: null, description: 'Favourites', previewPosters: summary.previewPosters });
    expect(summary.previewPosters).toEqual([{ posterPath: expect.stringMatching(/^\/.+/), movieDbId: SPIRITED_AWAY, type: 'movie' }]);
  });

  it('shows the featured public lists holding the title, most liked first, as the list summaries of their owners', async () => {
    const erin = await member(app, 'erin', ['profile:read', 'lists:read']);
    const em = app.db.orm.em.fork();
    const movieId = await titleId(app, movie);
    const made = [];
    for (const name of ['Featured A', 'Featured B', 'Not featured']) {
      const list = await createList(em, erin.userId, { name, description: '', isPublic: true });
      await transaction(em, (tx) => addTitles(tx, String(list.id), [movieId], erin.userId));
      made.push(list);
    }
    const [a, b] = made as [(typeof made)[0], (typeof made)[0]];
    await setFeatured(em, String(a.id), true);
    await setFeatured(em, String(b.id), true);
    await setLiked(em, alice.userId, b.id, true);
    const summaries = (await get(erin.token, '/me/lists?limit=100')).body.items as Record<string, unknown>[];
    const summary = (id: number) => summaries.find((l) => l.id === id);
    const res = await get(alice.token, `/title/movie/${SPIRITED_AWAY}`);
    expect(res.status).toBe(200);
    expect(res.body.featuredLists).toEqual([
      { ...summary(b.id), likeCount: 1 },
      { ...summary(a.id), likeCount: 0 },
    ]);
    expect((await get(alice.token, `/title/movie/${TOY_STORY}`)).body.featuredLists).toEqual([]);
    await setFeatured(em, String(a.id), false);
    await setFeatured(em, String(b.id), false);
  });
});

describe('title detail errors', () => {
  it('401 without a valid token, 403 without profile:read (naming it)', async () => {
    expectError(await get(null, `/title/movie/${SPIRITED_AWAY}`), 401, 'invalid_token');
    expectError(await get('not-a-token', `/title/movie/${SPIRITED_AWAY}`), 401, 'invalid_token');
    const noProfile = await tokenWith(app, alice, ['ratings:read', 'history:read', 'lists:read', 'collection:read']);
    expectError(await get(noProfile, `/title/movie/${SPIRITED_AWAY}`), 403, 'insufficient_scope', { required_scope: 'profile:read' });
  });

  it.each([
    ['a type other than movie or show', '/title/anime/129'],
    ['id 0', '/title/movie/0'],
    ['a negative id', '/title/movie/-1'],
    ['a non-integer id', '/title/movie/1.5'],
    ['a non-numeric id', '/title/movie/abc'],
    ['an id beyond 32 bits', '/title/movie/2147483648'],
    ['a 3-letter region', '/title/movie/129?region=usa'],
    ['a 1-letter region', '/title/movie/129?region=u'],
    ['a region of digits', '/title/movie/129?region=12'],
    ['an unknown scope', '/title/movie/129?scope=show'],
    ['an unknown query parameter', '/title/movie/129?lang=en'],
  ])('400 invalid_request for %s', async (_what, path) => {
    expectError(await get(aliceAll, path), 400, 'invalid_request');
  });

  it('accepts the boundaries: id 2147483647 (404, not 400), a 2-letter region in either case, each scope', async () => {
    expectError(await get(aliceAll, '/title/movie/2147483647'), 404, 'not_found');
    for (const q of ['region=US', 'region=us', 'scope=title', 'scope=series', 'scope=season', 'scope=episode']) {
      expect((await get(aliceAll, `/title/movie/${SPIRITED_AWAY}?${q}`)).status).toBe(200);
    }
  });

  it('404 not_found for an unknown title, and for a known id under the other type', async () => {
    expectError(await get(aliceAll, '/title/movie/999999'), 404, 'not_found');
    expectError(await get(aliceAll, `/title/show/${SPIRITED_AWAY}`), 404, 'not_found');
    expectError(await get(aliceAll, `/title/movie/${FIRST_SHOW}`), 404, 'not_found');
  });
});
