// The public catalog API over real HTTP on the demo catalog: the exact item shape, search relevance and
// typo tolerance, every filter of search, discover and trending, and 400 {message} for bad parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { importDemo, IMPORT_DEADLINE_MS } from './helpers/catalog.ts';
import { call } from './helpers/http.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await importDemo(app);
}, IMPORT_DEADLINE_MS);
afterAll(() => app?.stop());

type Item = Record<string, unknown>;

const get = (path: string) => call(app, `/api/public/v1${path}`);

async function items(path: string): Promise<Item[]> {
  const r = await get(path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Object.keys(r.body)).toEqual(['items']);
  const list = r.body.items as Item[];
  list.forEach(expectCatalogItem);
  return list;
}

// `CatalogItem` of the public OpenAPI document: every field present, none null, each of its type.
const FIELD_TYPES: Record<string, 'string' | 'integer' | 'number' | 'boolean' | 'string[]'> = {
  id: 'string',
  movieDbId: 'integer',
  type: 'string',
  category: 'string',
  isAnime: 'boolean',
  name: 'string',
  year: 'integer',
  overview: 'string',
  posterUrl: 'string',
  backdropUrl: 'string',
  communityRating: 'number',
  releaseDate: 'string',
  posterPath: 'string',
  backdropPath: 'string',
  popularity: 'number',
  runtimeMinutes: 'integer',
  genres: 'string[]',
  ageRating: 'string',
  originalLanguage: 'string',
  posterColor: 'string',
  posterColorIsDark: 'boolean',
};

function expectCatalogItem(item: Item) {
  expect(Object.keys(item).sort()).toEqual(Object.keys(FIELD_TYPES).sort());
  for (const [field, type] of Object.entries(FIELD_TYPES)) {
    const v = item[field];
    expect(v, field).not.toBeNull();
    if (type === 'integer') expect(Number.isInteger(v), `${field} integer`).toBe(true);
    else if (type === 'string[]') {
      expect(Array.isArray(v), field).toBe(true);
      for (const g of v as unknown[]) expect(typeof g).toBe('string');
    } else expect(typeof v, field).toBe(type);
  }
  expect(['movie', 'show']).toContain(item.type);
  expect(['movie', 'show', 'anime']).toContain(item.category);
  expect(item.isAnime).toBe(item.category === 'anime');
  expect(item.movieDbId as number).toBeGreaterThanOrEqual(1);
  expect(item.id).toBe(`${item.type}-${item.movieDbId}`);
  expect(item.posterColor).toMatch(/^#[0-9a-f]{6}$/);
  expect(item.releaseDate === '' || /^\d{4}-\d{2}-\d{2}$/.test(item.releaseDate as string)).toBe(true);
  if (item.posterPath) expect(item.posterUrl).toMatch(/^https?:\/\/.+\/w500\//);
  else expect(item.posterUrl).toBe('');
}

async function expectBadRequest(path: string, mentions: string) {
  const r = await get(path);
  expect(r.status).toBe(400);
  expect(Object.keys(r.body)).toEqual(['message']);
  expect(r.body.message).toContain(mentions);
  expect(r.headers.get('x-service-request-id')).toMatch(/^req_/);
}

describe('GET /catalog/search', () => {
  it('finds Spirited Away first, as an anime movie', async () => {
    const [first] = await items('/catalog/search?q=spirited%20away');
    expect(first).toMatchObject({ id: 'movie-129', movieDbId: 129, type: 'movie', category: 'anime', isAnime: true, name: 'Spirited Away', year: 2001 });
  });

  it('tolerates typos', async () => {
    expect((await items('/catalog/search?q=spirted%20away'))[0]?.movieDbId).toBe(129);
    expect((await items('/catalog/search?q=the%20matrx'))[0]?.name).toBe('The Matrix');
    // A typo in each word: still in the first three.
    expect((await items('/catalog/search?q=spirted%20awey')).slice(0, 3).map((i) => i.movieDbId)).toContain(129);
    expect((await items('/catalog/search?q=godfater'))[0]?.name).toBe('The Godfather');
  });

  it('ranks an exact name above longer names containing it', async () => {
    const list = await items('/catalog/search?q=alien&type=movie');
    expect(list[0]?.name).toBe('Alien');
  });

  it('filters by type, anime, year and genre, and honours limit', async () => {
    const shows = await items('/catalog/search?q=ghost&type=show&limit=10');
    expect(shows.length).toBeGreaterThan(0);
    expect(shows.every((i) => i.type === 'show')).toBe(true);
    const anime = await items('/catalog/search?q=ghost&anime=true&limit=10');
    expect(anime.length).toBeGreaterThan(0);
    expect(anime.every((i) => i.isAnime === true)).toBe(true);
    const notAnime = await items('/catalog/search?q=ghost&anime=false&limit=10');
    expect(notAnime.every((i) => i.isAnime === false)).toBe(true);
    const year = await items('/catalog/search?q=ghost&year=1995');
    expect(year.length).toBeGreaterThan(0);
    expect(year.every((i) => i.year === 1995)).toBe(true);
    const genre = await items('/catalog/search?q=ghost&genre=horror');
    expect(genre.length).toBeGreaterThan(0);
    expect(genre.every((i) => (i.genres as string[]).includes('Horror'))).toBe(true);
    expect(await items('/catalog/search?q=the&limit=3')).toHaveLength(3);
    expect(await items('/catalog/search?q=the')).toHaveLength(20);
  });

  it('returns an empty list when nothing matches', async () => {
    expect(await items('/catalog/search?q=zzqqxxjjvv')).toEqual([]);
  });

  it.each([
    ['/catalog/search', 'q'],
    ['/catalog/search?q=', 'q'],
    ['/catalog/search?q=%20%20', 'q'],
    [`/catalog/search?q=${'a'.repeat(201)}`, 'q'],
    ['/catalog/search?q=a&limit=0', 'limit'],
    ['/catalog/search?q=a&limit=51', 'limit'],
    ['/catalog/search?q=a&limit=ten', 'limit'],
    ['/catalog/search?q=a&type=book', 'type'],
    ['/catalog/search?q=a&anime=maybe', 'anime'],
    ['/catalog/search?q=a&year=19x5', 'year'],
    ['/catalog/search?q=a&colour=red', 'colour'],
  ])('rejects %s with 400 naming %s', (path, field) => expectBadRequest(path, field));
});

describe('GET /catalog/discover', () => {
  it('defaults to the 20 most popular titles', async () => {
    const list = await items('/catalog/discover');
    expect(list).toHaveLength(20);
    const pops = list.map((i) => i.popularity as number);
    expect(pops).toEqual([...pops].sort((a, b) => b - a));
  });

  it('filters by type, category, genre, years, language and minimum rating', async () => {
    const list = await items('/catalog/discover?type=movie&category=anime&genre=Fantasy&yearFrom=1990&yearTo=2010&language=ja&minRating=7&limit=50');
    expect(list.length).toBeGreaterThan(0);
    for (const i of list) {
      expect(i).toMatchObject({ type: 'movie', category: 'anime', originalLanguage: 'ja' });
      expect(i.genres).toContain('Fantasy');
      expect(i.year as number).toBeGreaterThanOrEqual(1990);
      expect(i.year as number).toBeLessThanOrEqual(2010);
      expect(i.communityRating as number).toBeGreaterThanOrEqual(7);
    }
    expect(list.map((i) => i.movieDbId)).toContain(129);
  });

  it('lists shows, live action and anime', async () => {
    const shows = await items('/catalog/discover?type=show&category=show&limit=5');
    expect(shows).toHaveLength(5);
    expect(shows.every((i) => i.type === 'show' && i.category === 'show' && i.isAnime === false)).toBe(true);
    const anime = await items('/catalog/discover?type=show&category=anime&limit=5');
    expect(anime).toHaveLength(5);
    expect(anime.every((i) => i.type === 'show' && i.isAnime === true)).toBe(true);
  });

  it.each([
    ['rating', (a: Item, b: Item) => (b.communityRating as number) - (a.communityRating as number)],
    ['release_date', (a: Item, b: Item) => String(b.releaseDate).localeCompare(String(a.releaseDate))],
  ])('sorts by %s', async (sort, cmp) => {
    const list = await items(`/catalog/discover?type=movie&sort=${sort}&limit=30`);
    expect(list).toEqual([...list].sort(cmp));
  });

  it('sorts by name', async () => {
    const list = await items('/catalog/discover?type=movie&sort=name&yearFrom=2000&yearTo=2000&limit=30');
    const names = list.map((i) => (i.name as string).toLowerCase());
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it.each([
    ['/catalog/discover?yearFrom=2010&yearTo=2000', 'yearFrom'],
    ['/catalog/discover?language=eng', 'language'],
    ['/catalog/discover?minRating=11', 'minRating'],
    ['/catalog/discover?sort=best', 'sort'],
    ['/catalog/discover?category=cartoon', 'category'],
    ['/catalog/discover?limit=101', 'limit'],
  ])('rejects %s with 400 naming %s', (path, field) => expectBadRequest(path, field));
});

describe('caching', () => {
  it('lets shared caches keep public catalog answers as long as the service does', async () => {
    const r = await get('/catalog/trending?limit=1');
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('answers a repeated search identically, whatever the case of the query', async () => {
    const a = await items('/catalog/search?q=Spirited%20Away');
    const b = await items('/catalog/search?q=spirited%20away');
    expect(b).toEqual(a);
  });
});

describe('GET /catalog/trending', () => {
  it('lists popular titles, filtered by type and category', async () => {
    const list = await items('/catalog/trending?limit=10');
    expect(list).toHaveLength(10);
    const shows = await items('/catalog/trending?type=show&limit=10');
    expect(shows.every((i) => i.type === 'show')).toBe(true);
    const anime = await items('/catalog/trending?category=anime&limit=10');
    expect(anime.every((i) => i.category === 'anime')).toBe(true);
  });

  it('rejects bad parameters with 400', () => expectBadRequest('/catalog/trending?limit=-1', 'limit'));
});
