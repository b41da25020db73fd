// The catalog importer and its sources, against a real database (embedded PGlite, or PostgreSQL when
// DATABASE_URL is set): rows written, re-imports updating in place, anime marking movies of the movie
// dataset, the synthetic generator's determinism, and the movie database API source against a fake
// server on the loopback interface.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnimeDataSource } from '../src/core/catalog/import/anime-data.ts';
import { parseCsv } from '../src/core/catalog/import/csv.ts';
import { importCatalog } from '../src/core/catalog/import/importer.ts';
import { sourcesFor } from '../src/core/catalog/import/index.ts';
import { MovieDbApiSource, MovieDbAuthError } from '../src/core/catalog/import/movie-db-api.ts';
import { defaultMoviesFile, genreNames, MoviesDatasetSource } from '../src/core/catalog/import/movies-dataset.ts';
import { posterColor, relativeLuminance } from '../src/core/catalog/import/poster-color.ts';
import { SYNTHETIC_START_ID, syntheticShows, SyntheticTvSource } from '../src/core/catalog/import/synthetic-tv.ts';
import type { CatalogSource, ImportPatch, ImportTitle } from '../src/core/catalog/import/types.ts';
import type { Database } from '../src/core/db/orm.ts';
import { IMPORT_DEADLINE_MS } from './helpers/catalog.ts';
import { migratedDatabase } from './helpers/db.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'movies_metadata.sample.csv');
/** Bangumi subjects: Spirited Away (movie 129) and Ghost in the Shell: SAC (show 1095: seasons 1, 2, specials). */
const ANIME_SUBJECTS = ['311', '324', '326', '19446'];

function inline(name: string, items: Array<ImportTitle | ImportPatch>): CatalogSource {
  return {
    name,
    async *items() {
      yield* items;
    },
  };
}

async function* chunked(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function records(text: string, size = text.length || 1): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of parseCsv(chunked(text, size))) out.push(r);
  return out;
}

describe('csv reader', () => {
  const text = 'a,b,c\r\n"x, y","say ""hi""","line1\nline2"\n,,\n\nlast,"q"\r\n"tail"';
  const expected = [['a', 'b', 'c'], ['x, y', 'say "hi"', 'line1\nline2'], ['', '', ''], ['last', 'q'], ['tail']];

  it('reads quoted commas, doubled quotes, line breaks, CRLF and a last record without a newline', async () => {
    expect(await records(text)).toEqual(expected);
  });

  it('gives the same records however the input is split into chunks', async () => {
    for (const size of [1, 2, 3, 5, 7]) expect(await records(text, size)).toEqual(expected);
  });

  it('keeps a carriage return that is inside quotes', async () => {
    expect(await records('"a\r"\nb\r\n')).toEqual([['a\r'], ['b']]);
  });
});

describe('poster colour and genre literal', () => {
  it('is a deterministic #rrggbb colour whose darkness follows its luminance', () => {
    const a = posterColor('/ynXoOxmDHNQ4UAy0oU6avW71HVW.jpg', 'Spirited Away');
    expect(a.color).toMatch(/^#[0-9a-f]{6}$/);
    expect(posterColor('/ynXoOxmDHNQ4UAy0oU6avW71HVW.jpg', 'another name')).toEqual(a);
    expect(posterColor('', 'Spirited Away')).toEqual(posterColor(undefined, 'Spirited Away'));
    expect(posterColor('', 'Spirited Away')).not.toEqual(a);
    for (const p of ['/a.jpg', '/b.jpg', '/c.jpg', 'x', 'y', 'z']) {
      const c = posterColor(p, '');
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(c.color.slice(i, i + 2), 16)) as [number, number, number];
      expect(c.isDark).toBe(relativeLuminance(r, g, b) < 0.5);
    }
    expect(relativeLuminance(255, 255, 255)).toBeCloseTo(1);
    expect(relativeLuminance(0, 0, 0)).toBe(0);
  });

  it('reads genre names from the dataset\'s Python literal', () => {
    expect(genreNames("[{'id': 16, 'name': 'Animation'}, {'id': 10751, 'name': \"Children's\"}]")).toEqual(['Animation', "Children's"]);
    expect(genreNames('[]')).toEqual([]);
  });
});

describe('synthetic TV generator', () => {
  const epoch = new Date('2026-01-15T12:00:00Z');

  it('gives the same shows for the same seed and different ones for another seed', () => {
    const a = syntheticShows({ count: 25, seed: 42, epoch });
    expect(syntheticShows({ count: 25, seed: 42, epoch })).toEqual(a);
    expect(syntheticShows({ count: 25, seed: 43, epoch })).not.toEqual(a);
  });

  it('labels its shows, keeps to its id range, its sizes and its dates, and has upcoming episodes', () => {
    const shows = syntheticShows({ epoch });
    expect(shows).toHaveLength(200);
    expect(shows.map((s) => s.movieDbId)).toEqual(shows.map((_, i) => SYNTHETIC_START_ID + i));
    expect(new Set(shows.map((s) => s.name)).size).toBe(200);
    const limit = '2027-01-15';
    let upcoming = 0;
    for (const s of shows) {
      expect(s).toMatchObject({ type: 'show', isAnime: false, source: 'synthetic' });
      expect(s.overview?.startsWith('Synthetic test data.')).toBe(true);
      expect(s.seasons?.length).toBeGreaterThanOrEqual(1);
      expect(s.seasons?.length).toBeLessThanOrEqual(8);
      for (const season of s.seasons ?? []) {
        expect(season.episodes?.length).toBeGreaterThanOrEqual(6);
        expect(season.episodes?.length).toBeLessThanOrEqual(22);
        for (const e of season.episodes ?? []) {
          expect(e.airDate! >= '1990-01-01' && e.airDate! <= limit).toBe(true);
          if (e.airDate! > '2026-01-15') upcoming++;
        }
      }
    }
    expect(upcoming).toBeGreaterThan(0);
  });
});

describe('catalog import into the database', () => {
  let release: () => Promise<void>;
  let db: Database;
  const em = () => db.orm.em.fork();
  const query = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => em().execute<T[]>(sql, params);
  const title = async (type: string, id: number) =>
    (await query(`select * from title where type = ? and movie_db_id = ?`, [type, id]))[0] as Record<string, unknown> | undefined;

  beforeAll(async () => {
    ({ db, release } = await migratedDatabase());
  });
  afterAll(() => release?.());

  it('imports the movies of a dataset file, skipping duplicates, broken rows and rows without a year', async () => {
    const progress: Array<[number, number | undefined]> = [];
    const [result] = await importCatalog(em(), [new MoviesDatasetSource({ file: FIXTURE })], (done, total) => progress.push([done, total]));
    expect(result).toEqual({ source: 'movies_dataset', titles: 4, seasons: 0, episodes: 0, patched: 0, skipped: 4 });
    expect(progress.at(-1)).toEqual([4, 4]);

    const rows = await query<{ movie_db_id: number }>(`select movie_db_id from title order by movie_db_id`);
    expect(rows.map((r) => r.movie_db_id)).toEqual([129, 862, 6000, 7000]);

    const spirited = await title('movie', 129);
    expect(spirited).toMatchObject({
      name: 'Spirited Away',
      original_name: '千と千尋の神隠し',
      category: 'movie',
      is_anime: false,
      year: 2001,
      film_db_id: 'tt0245429',
      runtime_minutes: 125,
      community_rating: 8.3,
      vote_count: 3968,
      genres: ['Fantasy', 'Adventure', 'Animation', 'Family'],
      original_language: 'ja',
      poster_path: '/ynXoOxmDHNQ4UAy0oU6avW71HVW.jpg',
      source: 'movies_dataset',
      seasons_count: null,
    });
    expect(spirited?.overview).toBe('A ten year old girl, Chihiro, wanders into a "spirit world".\nHer parents are turned into pigs, and she must work to free them.');
    const color = posterColor('/ynXoOxmDHNQ4UAy0oU6avW71HVW.jpg', 'Spirited Away');
    expect(spirited).toMatchObject({ poster_color: color.color, poster_color_is_dark: color.isDark });

    expect(await title('movie', 862)).toMatchObject({ name: 'Toy Story', genres: ['Animation', 'Comedy', 'Family'] });
    // Adult flag -> age rating 18; a rating over 10 is clamped; a 0-minute runtime is unknown.
    expect(await title('movie', 6000)).toMatchObject({ age_rating: '18', community_rating: 10, runtime_minutes: null, film_db_id: null });
    expect(await title('movie', 7000)).toMatchObject({ name: 'Crime, and Punishment', year: 2010, vote_count: 10 });
  });

  it('updates in place on a second import, never duplicating', async () => {
    await query(`update title set name = 'Changed', popularity = 0, genres = '{}' where type = 'movie' and movie_db_id = 862`);
    const [before] = await query<{ n: number; updated: string }>(`select count(*)::int as n, max(updated_at)::text as updated from title`);
    const [result] = await importCatalog(em(), [new MoviesDatasetSource({ file: FIXTURE })]);
    expect(result).toEqual({ source: 'movies_dataset', titles: 4, seasons: 0, episodes: 0, patched: 0, skipped: 4 });
    const [after] = await query<{ n: number; updated: string }>(`select count(*)::int as n, max(updated_at)::text as updated from title`);
    expect(after?.n).toBe(before?.n);
    expect(after!.updated > before!.updated).toBe(true);
    expect(await title('movie', 862)).toMatchObject({ name: 'Toy Story', popularity: 21.946943, genres: ['Animation', 'Comedy', 'Family'] });
  });

  it('marks Spirited Away as anime from the anime data, and imports anime shows with seasons and episodes', async () => {
    const source = () => new AnimeDataSource({ bangumiIds: ANIME_SUBJECTS, now: new Date('2026-01-01T00:00:00Z') });
    const [result] = await importCatalog(em(), [source()]);
    expect(result).toEqual({ source: 'anime_data', titles: 1, seasons: 3, episodes: 125, patched: 1, skipped: 0 });

    // The movie dataset's details stay; only the anime marking and ids are added.
    const spirited = await title('movie', 129);
    expect(spirited).toMatchObject({
      name: 'Spirited Away',
      category: 'anime',
      is_anime: true,
      anime_db_id: 199,
      external_ids: { anilist: 199, anidb: 112, bangumi: 311 },
      film_db_id: 'tt0245429',
      source: 'movies_dataset',
    });
    expect(String(spirited?.overview).startsWith('A ten year old girl')).toBe(true);

    const gits = await title('show', 1095);
    expect(gits).toMatchObject({
      name: '攻殻機動隊 STAND ALONE COMPLEX',
      category: 'anime',
      is_anime: true,
      year: 2002,
      anime_db_id: 467,
      seasons_count: 2,
      episodes_count: 52,
      status: 'Ended',
      community_rating: 9.1,
      source: 'anime_data',
    });
    const seasons = await query(`select season_number, name, episode_count, air_date::text as air_date from season where title_id = ? order by season_number`, [gits?.id]);
    expect(seasons).toEqual([
      { season_number: 0, name: 'Specials', episode_count: 73, air_date: '2002-10-01' },
      { season_number: 1, name: 'Season 1', episode_count: 26, air_date: '2002-10-01' },
      { season_number: 2, name: 'Season 2', episode_count: 26, air_date: '2004-01-01' },
    ]);
    const episodes = await query<{ season_number: number; episode_number: number; absolute_number: number | null; name: string }>(
      `select season_number, episode_number, absolute_number, name from episode where title_id = ? and episode_number in (1, 26) order by season_number, episode_number`,
      [gits?.id],
    );
    expect(episodes).toEqual([
      { season_number: 0, episode_number: 1, absolute_number: null, name: 'Episode 1' },
      { season_number: 0, episode_number: 26, absolute_number: null, name: 'Episode 26' },
      { season_number: 1, episode_number: 1, absolute_number: 1, name: 'Episode 1' },
      { season_number: 1, episode_number: 26, absolute_number: 26, name: 'Episode 26' },
      { season_number: 2, episode_number: 1, absolute_number: 27, name: 'Episode 1' },
      { season_number: 2, episode_number: 26, absolute_number: 52, name: 'Episode 26' },
    ]);

    // Again: the same counts, and no second copy of anything.
    const [again] = await importCatalog(em(), [source()]);
    expect(again).toEqual({ ...result, titles: 1, patched: 1 });
    const [counts] = await query(`select (select count(*)::int from title) as titles, (select count(*)::int from season) as seasons, (select count(*)::int from episode) as episodes`);
    expect(counts).toEqual({ titles: 5, seasons: 3, episodes: 125 });
  });

  it('keeps a title anime whichever source runs first, and inserts anime movies the movie dataset lacks', async () => {
    const base = { type: 'movie' as const, movieDbId: 8000, year: 1990, releaseDate: '1990-05-01' };
    const [anime] = await importCatalog(em(), [inline('anime_data', [{ ...base, isAnime: true, name: 'アニメ映画', animeDbId: 77, source: 'anime_data', onExisting: 'patch' }])]);
    expect(anime).toMatchObject({ titles: 1, patched: 0 });
    expect(await title('movie', 8000)).toMatchObject({ name: 'アニメ映画', category: 'anime', anime_db_id: 77 });

    const [movies] = await importCatalog(em(), [inline('movies_dataset', [{ ...base, isAnime: false, name: 'An Anime Film', source: 'movies_dataset' }])]);
    expect(movies).toMatchObject({ titles: 1, patched: 0 });
    expect(await title('movie', 8000)).toMatchObject({ name: 'An Anime Film', category: 'anime', is_anime: true, anime_db_id: 77, source: 'movies_dataset' });
  });

  it('applies patches to existing titles only, and skips invalid items', async () => {
    const patches: ImportPatch[] = [
      { type: 'movie', movieDbId: 862, externalIds: { wikidata: 'Q171048' } },
      { type: 'movie', movieDbId: 999_999, isAnime: true },
      { type: 'show', movieDbId: 862, isAnime: true },
    ];
    const [result] = await importCatalog(em(), [inline('patches', patches)]);
    expect(result).toMatchObject({ patched: 1, skipped: 2 });
    expect(await title('movie', 862)).toMatchObject({ category: 'movie', external_ids: { wikidata: 'Q171048' } });
    expect(await title('show', 862)).toBeUndefined();

    const valid = { type: 'movie' as const, isAnime: false, source: 'test', name: 'Valid', year: 2000 };
    const [invalid] = await importCatalog(em(), [
      inline('invalid', [
        { ...valid, movieDbId: 8101, name: '  ' },
        { ...valid, movieDbId: 8102, year: 2000.5 },
        { ...valid, movieDbId: 0 },
        { ...valid, movieDbId: 8103, releaseDate: '2000-02-30' },
      ]),
    ]);
    expect(invalid).toMatchObject({ titles: 1, skipped: 3 });
    expect(await title('movie', 8103)).toMatchObject({ name: 'Valid', release_date: null });
  });

  it('imports synthetic shows with their seasons and episodes, and re-imports them in place', async () => {
    const source = () => new SyntheticTvSource({ count: 12, seed: 5, epoch: new Date('2026-01-15T00:00:00Z') });
    const shows = syntheticShows({ count: 12, seed: 5, epoch: new Date('2026-01-15T00:00:00Z') });
    const seasons = shows.reduce((n, s) => n + (s.seasons?.length ?? 0), 0);
    const episodes = shows.reduce((n, s) => n + (s.seasons ?? []).reduce((m, x) => m + (x.episodes?.length ?? 0), 0), 0);
    const [first] = await importCatalog(em(), [source()], undefined, { batchSize: 5, rowsPerStatement: 40 });
    expect(first).toEqual({ source: 'synthetic', titles: 12, seasons, episodes, patched: 0, skipped: 0 });
    const [second] = await importCatalog(em(), [source()]);
    expect(second).toEqual(first);
    const [row] = await query<{ n: number; e: number; counted: number }>(
      `select count(*)::int as n, (select count(*)::int from episode e join title t on t.id = e.title_id where t.source = 'synthetic') as e,
        sum(episodes_count)::int as counted from title where source = 'synthetic'`,
    );
    expect(row).toEqual({ n: 12, e: episodes, counted: episodes });
    expect(await title('show', SYNTHETIC_START_ID)).toMatchObject({ name: shows[0]?.name, category: 'show', seasons_count: shows[0]?.seasons?.length });
  });

  describe('the movie database API source', () => {
    let server: http.Server;
    let baseUrl: string;
    const hits: string[] = [];
    let throttled = false;

    const routes: Record<string, unknown> = {
      '/3/movie/550': {
        id: 550, title: 'Fight Club', original_title: 'Fight Club', tagline: 'Mischief. Mayhem. Soap.', release_date: '1999-10-15',
        overview: 'An insomniac office worker...', poster_path: '/pB8BM7pdSp6B6Ih7QZ4DrQ3PmJK.jpg', backdrop_path: '/hZkgoQYus5vegHoetLkCJzb17zJ.jpg',
        popularity: 61.4, vote_average: 8.4, vote_count: 26280, runtime: 139, status: 'Released', original_language: 'en', adult: false,
        genres: [{ id: 18, name: 'Drama' }], imdb_id: 'tt0137523',
        external_ids: { imdb_id: 'tt0137523', wikidata_id: 'Q190050', facebook_id: null },
        release_dates: { results: [{ iso_3166_1: 'US', release_dates: [{ certification: '' }, { certification: 'R' }] }] },
      },
      '/3/tv/1399': {
        id: 1399, name: 'Game of Thrones', original_name: 'Game of Thrones', first_air_date: '2011-04-17', overview: 'Seven noble families...',
        poster_path: '/1XS1oqL89opfnbLl8WnZY1O1uJx.jpg', popularity: 346.1, vote_average: 8.4, vote_count: 21000, status: 'Ended',
        original_language: 'en', episode_run_time: [60], genres: [{ id: 10765, name: 'Sci-Fi & Fantasy' }, { id: 18, name: 'Drama' }],
        external_ids: { imdb_id: 'tt0944947', tvdb_id: 121361, wikidata_id: 'Q23572' },
        content_ratings: { results: [{ iso_3166_1: 'DE', rating: '16' }, { iso_3166_1: 'US', rating: 'TV-MA' }] },
        seasons: [{ season_number: 0, name: 'Specials', episode_count: 1 }, { season_number: 1, name: 'Season 1', episode_count: 2 }],
      },
      '/3/tv/1399/season/0': { name: 'Specials', air_date: '2010-12-05', episodes: [{ episode_number: 1, name: 'Inside Game of Thrones', air_date: '2010-12-05' }] },
      '/3/tv/1399/season/1': {
        name: 'Season 1', air_date: '2011-04-17', poster_path: '/wgfKiqzuMrFIkU1M68DDDY8kGC1.jpg',
        episodes: [
          { episode_number: 1, name: 'Winter Is Coming', air_date: '2011-04-17', runtime: 62, still_path: '/9hGF3WUkBf7cSjMg0cdMDHJkByd.jpg' },
          { episode_number: 2, name: 'The Kingsroad', air_date: '2011-04-24', runtime: 56 },
        ],
      },
      '/3/tv/37854': {
        id: 37854, name: 'One Piece', original_name: 'ワンピース', first_air_date: '1999-10-20', original_language: 'ja',
        genres: [{ id: 16, name: 'Animation' }], external_ids: { tvdb_id: 81797 }, seasons: [],
      },
    };

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        hits.push(`${url.pathname}?${url.searchParams.get('append_to_response') ?? ''}`);
        if (url.searchParams.get('api_key') !== 'good-key') {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"status_code":7,"status_message":"Invalid API key"}');
          return;
        }
        // The first request for the show is throttled once, to exercise Retry-After.
        if (url.pathname === '/3/tv/1399' && !throttled) {
          throttled = true;
          res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"status_code":25}');
          return;
        }
        const body = routes[url.pathname];
        if (!body) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"status_code":34}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('maps movies and shows, retries a 429, skips a 404, and imports them', async () => {
      const source = sourcesFor(['movie-db-api'], {
        movieDbApi: {
          apiKey: 'good-key',
          baseUrl,
          ids: [{ type: 'movie', movieDbId: 550 }, { type: 'show', movieDbId: 1399 }, { type: 'movie', movieDbId: 404 }, { type: 'show', movieDbId: 37854 }],
        },
      });
      const [result] = await importCatalog(em(), source);
      expect(result).toEqual({ source: 'movie_db_api', titles: 3, seasons: 2, episodes: 3, patched: 0, skipped: 0 });
      expect(hits).toContain('/3/movie/550?external_ids,release_dates');
      expect(hits.filter((h) => h === '/3/tv/1399?external_ids,content_ratings')).toHaveLength(2);

      expect(await title('movie', 550)).toMatchObject({
        name: 'Fight Club', year: 1999, release_date: '1999-10-15', film_db_id: 'tt0137523', age_rating: 'R', runtime_minutes: 139,
        genres: ['Drama'], external_ids: { wikidata: 'Q190050' }, category: 'movie', source: 'movie_db_api',
      });
      const got = await title('show', 1399);
      expect(got).toMatchObject({
        name: 'Game of Thrones', tv_db_id: 121361, film_db_id: 'tt0944947', age_rating: 'TV-MA', episode_run_time_minutes: 60,
        seasons_count: 1, episodes_count: 2, category: 'show',
      });
      const episodes = await query(`select season_number, episode_number, name, air_date::text as air_date, runtime_minutes from episode where title_id = ? order by 1, 2`, [got?.id]);
      expect(episodes).toEqual([
        { season_number: 0, episode_number: 1, name: 'Inside Game of Thrones', air_date: '2010-12-05', runtime_minutes: null },
        { season_number: 1, episode_number: 1, name: 'Winter Is Coming', air_date: '2011-04-17', runtime_minutes: 62 },
        { season_number: 1, episode_number: 2, name: 'The Kingsroad', air_date: '2011-04-24', runtime_minutes: 56 },
      ]);
      // Japanese animation counts as anime.
      expect(await title('show', 37854)).toMatchObject({ category: 'anime', tv_db_id: 81797, seasons_count: 0, episodes_count: 0 });
    });

    it('fails clearly on a rejected API key', async () => {
      const source = new MovieDbApiSource({ apiKey: 'bad-key', baseUrl, ids: [{ type: 'movie', movieDbId: 550 }] });
      const err = await importCatalog(em(), [source]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MovieDbAuthError);
      expect(String((err as Error).message)).toMatch(/rejected the API key/);
      expect(String((err as Error).message)).not.toContain('bad-key');
    });

    it('walks the popular lists', async () => {
      routes['/3/movie/popular'] = { page: 1, total_pages: 1, results: [{ id: 550 }] };
      routes['/3/tv/popular'] = { page: 1, total_pages: 1, results: [{ id: 37854 }] };
      const source = new MovieDbApiSource({ apiKey: 'good-key', baseUrl, ids: { popularPages: 3 } });
      const names: string[] = [];
      for await (const t of source.items()) names.push(t.name);
      expect(names).toEqual(['Fight Club', 'One Piece']);
    });
  });
});

const dataInstalled = (() => {
  try {
    return fs.existsSync(defaultMoviesFile()) && fs.existsSync(new AnimeDataSource().dataFile);
  } catch {
    return false;
  }
})();

describe.skipIf(!dataInstalled)('the full movie dataset and anime data', () => {
  let release: () => Promise<void>;
  let db: Database;

  beforeAll(async () => {
    ({ db, release } = await migratedDatabase());
  });
  afterAll(() => release?.());

  it('imports over 40,000 titles with Spirited Away as anime', async () => {
    const started = performance.now();
    const results = await importCatalog(db.orm.em.fork(), sourcesFor(['movies', 'anime']));
    const seconds = (performance.now() - started) / 1000;
    console.log(`full import (${db.mode}): ${seconds.toFixed(1)} s`, results);
    const em = db.orm.em.fork();
    const [counts] = await em.execute<Array<{ titles: number }>>(`select count(*)::int as titles from title`);
    expect(counts?.titles).toBeGreaterThan(40_000);
    const [spirited] = await em.execute(`select name, category, is_anime, anime_db_id from title where type = 'movie' and movie_db_id = 129`);
    expect(spirited).toEqual({ name: 'Spirited Away', category: 'anime', is_anime: true, anime_db_id: 199 });
  }, IMPORT_DEADLINE_MS);
});
