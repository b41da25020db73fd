// The importers' readers (src/core/import/sources): each source's fixture export read into the exact
// records the import run writes (ids mapped, ratings converted, statuses mapped, rows located), the same
// records whatever the ZIP's order or folder, and every kind of bad file refused with ImportFileError
// and its message. Matching of the fixtures' titles against a seeded catalog is in import-matching.test.ts.
import { describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { ImportFileError, type ImportRecord, type Importer } from '../../src/core/import/records.ts';
import { importers } from '../../src/core/import/sources/index.ts';
import { starsToRating } from '../../src/core/import/sources/letterboxd.ts';
import { jsonElements } from '../../src/core/import/sources/json-elements.ts';
import { JSON_PIECE_BYTES, MAX_EXPANDED_BYTES } from '../../src/core/import/sources/limits.ts';
import { zipMembers } from '../../src/core/import/sources/zip.ts';
import { chunked, fixtureFiles, fixtureZip, streamedZip } from '../helpers/import-fixtures.ts';

async function read(importer: Importer, bytes: Uint8Array | AsyncIterable<Uint8Array>): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const r of importer(bytes instanceof Uint8Array ? chunked(bytes, 333) : bytes)) out.push(r);
  return out;
}

async function refusal(importer: Importer, bytes: Uint8Array | AsyncIterable<Uint8Array>): Promise<string> {
  try {
    await read(importer, bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(ImportFileError);
    return (err as Error).message;
  }
  throw new Error('the file was read without an error');
}

const at = (file: string, row: number, label: string) => ({ file, row, label });

// Trakt's objects, as our title fields.
const SA = { movie_db_id: 129, film_db_id: 'tt0245429', title: 'Spirited Away', year: 2001 };
const SA_T = 'Spirited Away (2001) trakt:1 tmdb:129 imdb:tt0245429';
const BB = { movie_db_id: 1396, tv_db_id: 81189, film_db_id: 'tt0903747', title: 'Breaking Bad', year: 2008 };
const BB_T = (code = '') => `Breaking Bad (2008)${code ? ` ${code}` : ''} trakt:1388 tmdb:1396 imdb:tt0903747 tvdb:81189`;
const AOT_T = { tv_db_id: 267440, film_db_id: 'tt2560140', title: 'Attack on Titan', year: 2013 };
const NOBODY_T = { movie_db_id: 987654, title: 'A Film Nobody Has', year: 1999 };

const TRAKT_HISTORY: ImportRecord[] = [
  { kind: 'history', item: { ...SA, watched_at: '2024-01-05T20:00:00.000Z' }, at: at('watched-history.json', 1, SA_T) },
  { kind: 'history', item: { ...SA, watched_at: '2024-06-01T19:30:00.000Z' }, at: at('watched-history.json', 2, SA_T) },
  { kind: 'history', item: { ...BB, watched_at: '2024-02-01T21:00:00.000Z', season: 1, episode: 1, episode_title: 'Pilot' }, at: at('watched-history.json', 3, BB_T('S01E01')) },
  { kind: 'history', item: { ...BB, watched_at: '2024-02-02T21:00:00.000Z', season: 1, episode: 2, episode_title: 'Cat\'s in the Bag...' }, at: at('watched-history.json', 4, BB_T('S01E02')) },
  { kind: 'history', item: { ...BB, watched_at: '2024-02-03T21:00:00.000Z', season: 0, episode: 1, episode_title: 'Good Cop Bad Cop' }, at: at('watched-history.json', 5, BB_T('S00E01')) },
  { kind: 'history', item: { ...AOT_T, watched_at: '2024-03-10T18:00:00.000Z', season: 2, episode: 1, episode_title: 'Beast Titan' }, at: at('watched-history.json', 6, 'Attack on Titan (2013) S02E01 trakt:1420 imdb:tt2560140 tvdb:267440') },
  { kind: 'history', item: { film_db_id: 'tt0211915', title: 'Amélie', year: 2001, watched_at: '2024-03-11T18:00:00.000Z' }, at: at('watched-history.json', 7, 'Amélie (2001) trakt:3 imdb:tt0211915') },
  { kind: 'history', item: { ...NOBODY_T, watched_at: '2024-03-12T18:00:00.000Z' }, at: at('watched-history.json', 8, 'A Film Nobody Has (1999) trakt:4 tmdb:987654') },
  { kind: 'history', item: { title: 'Toy Story', year: 1995, watched_at: '2024-03-13T18:00:00.000Z' }, at: at('watched-history.json', 9, 'Toy Story (1995) trakt:2') },
];

const TRAKT_LIST: ImportRecord = {
  kind: 'list',
  name: 'Ghibli & friends',
  description: 'Films and a show I push on everyone',
  items: [
    { title: { type: 'movie', ...SA }, note: 'Start here', at: at('lists-ghibli-friends.json', 1, SA_T) },
    { title: { type: 'show', ...BB }, note: null, at: at('lists-ghibli-friends.json', 2, BB_T()) },
    // Row 3 is a person: not a title.
    { title: { type: 'movie', ...NOBODY_T }, note: null, at: at('lists-ghibli-friends.json', 4, 'A Film Nobody Has (1999) trakt:4 tmdb:987654') },
  ],
  at: at('lists-lists.json', 1, 'Ghibli & friends'),
};

/** The Trakt fixture ZIP's records, members in name order (watched-movies.json is not read). */
const TRAKT: ImportRecord[] = [
  { kind: 'favourite', title: { type: 'movie', ...SA }, at: at('favorites-movies.json', 1, SA_T) },
  TRAKT_LIST,
  { kind: 'rating', item: { type: 'show', ...BB, season: 1, episode: 1, rating: 7, rated_at: '2024-02-12T10:00:00.000Z' }, at: at('ratings-episodes.json', 1, BB_T('S01E01')) },
  { kind: 'rating', item: { type: 'show', ...BB, season: 0, episode: 1, rating: 6, rated_at: '2024-02-13T10:00:00.000Z' }, at: at('ratings-episodes.json', 2, BB_T('S00E01')) },
  { kind: 'rating', item: { type: 'movie', ...SA, rating: 10, rated_at: '2024-01-06T10:00:00.000Z' }, at: at('ratings-movies.json', 1, SA_T) },
  { kind: 'rating', item: { type: 'movie', title: 'Toy Story', year: 1995, rating: 7, rated_at: '2024-03-14T10:00:00.000Z' }, at: at('ratings-movies.json', 2, 'Toy Story (1995) trakt:2') },
  { kind: 'rating', item: { type: 'show', ...BB, season: 1, rating: 8, rated_at: '2024-02-11T10:00:00.000Z' }, at: at('ratings-seasons.json', 1, BB_T('S01')) },
  { kind: 'rating', item: { type: 'show', ...BB, rating: 9, rated_at: '2024-02-10T10:00:00.000Z' }, at: at('ratings-shows.json', 1, BB_T()) },
  ...TRAKT_HISTORY,
  { kind: 'watchlist', item: { type: 'movie', title: 'Harold and Kumar Go to White Castle', year: 2004 }, at: at('watchlist-movies.json', 1, 'Harold and Kumar Go to White Castle (2004) trakt:5') },
  { kind: 'watchlist', item: { type: 'show', ...AOT_T }, at: at('watchlist-shows.json', 1, 'Attack on Titan (2013) trakt:1420 imdb:tt2560140 tvdb:267440') },
  // An episode on the watchlist: its show.
  { kind: 'watchlist', item: { type: 'show', ...BB }, at: at('watchlist-shows.json', 2, BB_T('S03E01')) },
  // A list with no items file: the list, empty.
  { kind: 'list', name: 'Someday', description: null, items: [], at: at('lists-lists.json', 2, 'Someday') },
];

describe('Trakt export', () => {
  it('reads the ZIP into every record: plays, ratings at four levels, watchlist, favourites, custom lists', async () => {
    expect(await read(importers.trakt, fixtureZip('trakt'))).toEqual(TRAKT);
  });

  it('reads a list file that comes before lists-lists.json, in a ZIP that wraps the export in a folder', async () => {
    const records = await read(importers.trakt, fixtureZip('trakt', { order: ['lists-ghibli-friends.json'], prefix: 'trakt-export-2024/' }));
    expect(records).toHaveLength(TRAKT.length);
    expect(records).toEqual(expect.arrayContaining(TRAKT));
  });

  it('reads one export file alone, each element by its shape, with the row names the ZIP gives', async () => {
    const files = fixtureFiles('trakt');
    expect(await read(importers.trakt, files['watched-history.json']!)).toEqual(TRAKT_HISTORY);
    expect(await read(importers.trakt, files['ratings-seasons.json']!)).toEqual(TRAKT.filter((r) => r.at.file === 'ratings-seasons.json'));
    expect(await read(importers.trakt, Buffer.from('[]'))).toEqual([]);
  });

  it('refuses a JSON file of none of the export\'s kinds, and a custom list without its ZIP', async () => {
    expect(await refusal(importers.trakt, fixtureFiles('trakt')['lists-lists.json']!)).toBe(
      'the file is not one of the Trakt export\'s history, ratings or watchlist files: upload the whole export ZIP (custom lists need it)',
    );
    expect(await refusal(importers.trakt, Buffer.from('{"watched_at": "2024-01-01T00:00:00Z"}'))).toBe('the file: expected a JSON array, found an object');
  });
});

const LB = (file: string, row: number, name: string, year: number, uri: string) => at(file, row, `${name} (${year}) ${uri}`);

/** The Letterboxd fixture ZIP's records, members in name order (deleted/ and profile.csv are not read). */
const LETTERBOXD: ImportRecord[] = [
  { kind: 'history', item: { title: 'Spirited Away', year: 2001, watched_at: '2024-01-05T12:00:00Z' }, at: LB('diary.csv', 2, 'Spirited Away', 2001, 'https://boxd.it/dA1') },
  // The rewatch: a watch of its own.
  { kind: 'history', item: { title: 'Spirited Away', year: 2001, watched_at: '2024-06-01T12:00:00Z' }, at: LB('diary.csv', 3, 'Spirited Away', 2001, 'https://boxd.it/dA2') },
  { kind: 'history', item: { title: 'Amelie', year: 2001, watched_at: '2024-02-09T12:00:00Z' }, at: LB('diary.csv', 4, 'Amelie', 2001, 'https://boxd.it/dA3') },
  // No Watched Date: the day it was logged.
  { kind: 'history', item: { title: 'Crime & Punishment', year: 2010, watched_at: '2024-03-01T12:00:00Z' }, at: LB('diary.csv', 5, 'Crime & Punishment', 2010, 'https://boxd.it/dA4') },
  // A formula in a name stays text, exactly as written.
  {
    kind: 'history',
    item: { title: '=HYPERLINK("https://example.invalid","click")', year: 2020, watched_at: '2024-04-01T12:00:00Z' },
    at: LB('diary.csv', 6, '=HYPERLINK("https://example.invalid","click")', 2020, 'https://boxd.it/dA5'),
  },
  {
    kind: 'list',
    name: 'Animated favourites',
    description: 'Hand-drawn, mostly',
    items: [
      { title: { type: 'movie', title: 'Spirited Away', year: 2001 }, note: 'The bathhouse', at: LB('lists/animated-favourites.csv', 5, 'Spirited Away', 2001, 'https://letterboxd.com/film/spirited-away/') },
      { title: { type: 'movie', title: 'Toy Story', year: 1995 }, note: null, at: LB('lists/animated-favourites.csv', 6, 'Toy Story', 1995, 'https://letterboxd.com/film/toy-story/') },
      { title: { type: 'movie', title: 'A Film Nobody Has', year: 1999 }, note: null, at: LB('lists/animated-favourites.csv', 7, 'A Film Nobody Has', 1999, 'https://letterboxd.com/film/nobody/') },
    ],
    at: at('lists/animated-favourites.csv', 3, 'Animated favourites'),
  },
  // Stars x 2: 5 -> 10, 0.5 -> 1, 3.5 -> 7.
  { kind: 'rating', item: { type: 'movie', title: 'Spirited Away', year: 2001, rating: 10, rated_at: '2024-01-06T12:00:00Z' }, at: LB('ratings.csv', 2, 'Spirited Away', 2001, 'https://boxd.it/fSA') },
  { kind: 'rating', item: { type: 'movie', title: 'Amelie', year: 2001, rating: 1, rated_at: '2024-02-10T12:00:00Z' }, at: LB('ratings.csv', 3, 'Amelie', 2001, 'https://boxd.it/fAM') },
  { kind: 'rating', item: { type: 'movie', title: 'Toy Story', year: 1995, rating: 7, rated_at: '2023-12-01T12:00:00Z' }, at: LB('ratings.csv', 4, 'Toy Story', 1995, 'https://boxd.it/fTS') },
  // watched.csv: only the films the diary does not hold, on the day they were marked.
  { kind: 'history', item: { title: 'Toy Story', year: 1995, watched_at: '2023-12-01T12:00:00Z' }, at: LB('watched.csv', 3, 'Toy Story', 1995, 'https://boxd.it/fTS') },
  { kind: 'history', item: { title: 'A Film Nobody Has', year: 1999, watched_at: '2023-11-11T12:00:00Z' }, at: LB('watched.csv', 5, 'A Film Nobody Has', 1999, 'https://boxd.it/fNO') },
  { kind: 'watchlist', item: { type: 'movie', title: 'Harold and Kumar Go to White Castle', year: 2004 }, at: LB('watchlist.csv', 2, 'Harold and Kumar Go to White Castle', 2004, 'https://boxd.it/fHK') },
  { kind: 'watchlist', item: { type: 'movie', title: 'Schindler’s List', year: 1993 }, at: LB('watchlist.csv', 3, 'Schindler’s List', 1993, 'https://boxd.it/fSL') },
  { kind: 'watchlist', item: { type: 'movie', title: '+SUM(1;2)', year: 2021 }, at: LB('watchlist.csv', 4, '+SUM(1;2)', 2021, 'https://boxd.it/fXX') },
];

describe('Letterboxd export', () => {
  it('reads the ZIP into every record: diary watches and rewatches, watched films, ratings, watchlist, lists', async () => {
    expect(await read(importers.letterboxd, fixtureZip('letterboxd'))).toEqual(LETTERBOXD);
  });

  it('gives the same records when watched.csv comes before diary.csv, or the export sits in a folder', async () => {
    for (const zip of [fixtureZip('letterboxd', { order: ['watched.csv', 'ratings.csv'] }), fixtureZip('letterboxd', { prefix: 'letterboxd-someone-2024-11-02/' })]) {
      const records = await read(importers.letterboxd, zip);
      expect(records).toHaveLength(LETTERBOXD.length);
      expect(records).toEqual(expect.arrayContaining(LETTERBOXD));
    }
  });

  it('converts stars to the 1-10 scale: twice the stars', () => {
    expect(['0.5', '1', '2.5', '4.5', '5'].map(starsToRating)).toEqual([1, 2, 5, 9, 10]);
    expect([undefined, '', 'five'].map(starsToRating)).toEqual([undefined, undefined, undefined]);
  });

  it('takes only the ZIP, and refuses a list file without its table or a diary without its columns', async () => {
    expect(await refusal(importers.letterboxd, fixtureFiles('letterboxd')['diary.csv']!)).toBe(
      'not a Letterboxd export: upload the ZIP file Letterboxd gives (Settings, Import & Export, Export your data)',
    );
    const list = zipSync({ 'lists/broken.csv': Buffer.from('Letterboxd list export v7\nDate,Name,Tags,URL,Description\n2024-01-01,Broken,,,\n') });
    expect(await refusal(importers.letterboxd, list)).toBe('lists/broken.csv is not a Letterboxd list export (no Position, Name, Year table)');
    const diary = zipSync({ 'diary.csv': Buffer.from('Title,When\nSpirited Away,2024-01-01\n') });
    expect(await refusal(importers.letterboxd, diary)).toBe('diary.csv is not Letterboxd\'s: it has no Name column');
  });
});

const SIMKL_BB = { movie_db_id: 1396, tv_db_id: 81189, film_db_id: 'tt0903747', title: 'Breaking Bad', year: 2008 };
const SB = (code = '') => `Breaking Bad (2008)${code ? ` ${code}` : ''} simkl:11121 tmdb:1396 imdb:tt0903747 tvdb:81189`;
const AOT = { tv_db_id: 267440, anime_db_id: 16498, title: 'Attack on Titan', year: 2013 };
const AO = (code = '') => `Attack on Titan (2013)${code ? ` ${code}` : ''} simkl:39893 tvdb:267440 mal:16498 anidb:9541`;
const SAS = 'Spirited Away (2001) simkl:53536 tmdb:129 imdb:tt0245429';
const synthetic = (n: number, name: string) => ({ type: 'show' as const, movie_db_id: 9_000_000 + n, title: name });
const synth = (n: number, name: string, code = '') => `${name}${code ? ` ${code}` : ''} simkl:${9_000_000 + n} tmdb:${9_000_000 + n}`;

const SIMKL: ImportRecord[] = [
  { kind: 'history', item: { ...SA, watched_at: '2024-01-05T20:00:00Z' }, at: at('movies', 1, SAS) },
  { kind: 'rating', item: { type: 'movie', ...SA, rating: 9, rated_at: '2024-01-06T10:00:00Z' }, at: at('movies', 1, SAS) },
  { kind: 'show_status', title: { type: 'movie', ...SA }, status: 'completed', at: at('movies', 1, SAS) },
  // plantowatch: the watchlist, and planned.
  { kind: 'watchlist', item: { type: 'movie', movie_db_id: 862, title: 'Toy Story', year: 1995 }, at: at('movies', 2, 'Toy Story (1995) simkl:53001 tmdb:862') },
  { kind: 'show_status', title: { type: 'movie', movie_db_id: 862, title: 'Toy Story', year: 1995 }, status: 'planned', at: at('movies', 2, 'Toy Story (1995) simkl:53001 tmdb:862') },
  { kind: 'history', item: { title: 'A Film Nobody Has', year: 1999, watched_at: '2024-02-15T20:00:00Z' }, at: at('movies', 3, 'A Film Nobody Has (1999) simkl:1') },
  { kind: 'show_status', title: { type: 'movie', title: 'A Film Nobody Has', year: 1999 }, status: 'completed', at: at('movies', 3, 'A Film Nobody Has (1999) simkl:1') },
  // A special (season 0), and an episode without its own date: the entry's last_watched_at.
  { kind: 'history', item: { ...SIMKL_BB, season: 0, episode: 1, watched_at: '2024-03-01T21:00:00Z' }, at: at('shows', 1, SB('S00E01')) },
  { kind: 'history', item: { ...SIMKL_BB, season: 1, episode: 1, watched_at: '2024-02-28T21:00:00Z' }, at: at('shows', 1, SB('S01E01')) },
  { kind: 'history', item: { ...SIMKL_BB, season: 1, episode: 2, watched_at: '2024-03-02T21:00:00Z' }, at: at('shows', 1, SB('S01E02')) },
  { kind: 'rating', item: { type: 'show', ...SIMKL_BB, rating: 8, rated_at: '2024-03-03T09:00:00Z' }, at: at('shows', 1, SB()) },
  { kind: 'show_status', title: { type: 'show', ...SIMKL_BB }, status: 'watching', at: at('shows', 1, SB()) },
  { kind: 'show_status', title: synthetic(1, 'Station of Cedar Falls'), status: 'paused', at: at('shows', 2, synth(1, 'Station of Cedar Falls')) },
  { kind: 'show_status', title: synthetic(2, 'Kingsbridge Coast'), status: 'dropped', at: at('shows', 3, synth(2, 'Kingsbridge Coast')) },
  { kind: 'history', item: { movie_db_id: 9_000_003, title: 'Ashford Ward', season: 1, episode: 1, watched_at: '2024-03-31T21:00:00Z' }, at: at('shows', 4, synth(3, 'Ashford Ward', 'S01E01')) },
  { kind: 'show_status', title: synthetic(3, 'Ashford Ward'), status: 'completed', at: at('shows', 4, synth(3, 'Ashford Ward')) },
  { kind: 'watchlist', item: synthetic(4, 'The Quiet Circuit'), at: at('shows', 5, synth(4, 'The Quiet Circuit')) },
  { kind: 'show_status', title: synthetic(4, 'The Quiet Circuit'), status: 'planned', at: at('shows', 5, synth(4, 'The Quiet Circuit')) },
  // Row 6 is notinteresting: nothing.
  // Anime: specials by season and number; season 1 by absolute number (26 is the second season's first).
  { kind: 'history', item: { ...AOT, season: 0, episode: 1, watched_at: '2024-05-03T18:00:00Z' }, at: at('anime', 1, AO('S00E01')) },
  { kind: 'history', item: { ...AOT, episode: 1, watched_at: '2024-05-01T18:00:00Z' }, at: at('anime', 1, AO('E1')) },
  { kind: 'history', item: { ...AOT, episode: 26, watched_at: '2024-05-02T18:00:00Z' }, at: at('anime', 1, AO('E26')) },
  { kind: 'rating', item: { type: 'show', ...AOT, rating: 10 }, at: at('anime', 1, AO()) },
  { kind: 'show_status', title: { type: 'show', ...AOT }, status: 'watching', at: at('anime', 1, AO()) },
  // An anime film is a movie.
  { kind: 'history', item: { anime_db_id: 32281, title: 'Your Name', year: 2016, watched_at: '2024-05-10T18:00:00Z' }, at: at('anime', 2, 'Your Name (2016) simkl:610510 mal:32281') },
  { kind: 'show_status', title: { type: 'movie', anime_db_id: 32281, title: 'Your Name', year: 2016 }, status: 'completed', at: at('anime', 2, 'Your Name (2016) simkl:610510 mal:32281') },
];

describe('Simkl backup', () => {
  it('reads the JSON into every record: watches by episode (anime by absolute number), ratings, statuses, watchlist', async () => {
    expect(await read(importers.simkl, fixtureFiles('simkl')['SimklBackup.json']!)).toEqual(SIMKL);
  });

  it('reads the same backup from a ZIP, its rows named by the member', async () => {
    const records = await read(importers.simkl, fixtureZip('simkl'));
    expect(records).toEqual(SIMKL.map((r) => ({ ...r, at: { ...r.at, file: `SimklBackup.json/${r.at.file}` } })));
  });

  it('refuses a JSON document that is not a backup', async () => {
    expect(await refusal(importers.simkl, Buffer.from('{"user": {"name": "someone"}}'))).toBe('the file is not a Simkl backup: it has no movies, shows or anime');
    expect(await refusal(importers.simkl, Buffer.from('[{"movie": {}}]'))).toBe('the file: expected a JSON object, found an array');
  });
});

/** `total` bytes of random data, made as they are read; counts what was read. */
function randomBytes(total: number) {
  const seen = { bytes: 0 };
  async function* gen() {
    let x = 12345;
    for (let sent = 0; sent < total; sent += 65536) {
      const chunk = new Uint8Array(65536);
      for (let i = 0; i < chunk.length; i++) chunk[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
      seen.bytes += chunk.length;
      yield chunk;
    }
  }
  return { seen, chunks: gen() };
}

describe('JSON arrays read in pieces', () => {
  it('a large buffer is parsed a piece at a time, characters cut at a piece boundary kept whole', async () => {
    // Four-byte characters after a two-byte `["`: every piece boundary (a multiple of 4 bytes) falls inside one.
    const values = Array.from({ length: 40 }, (_, i) => `${'🎬'.repeat(2000)}é${i}`);
    const bytes = Buffer.from(JSON.stringify(values));
    expect(JSON_PIECE_BYTES % 4).toBe(0);
    expect(bytes.length).toBeGreaterThan(4 * JSON_PIECE_BYTES);
    const got: unknown[] = [];
    // One buffer, as a ZIP member inflates: the reader cuts it, not the caller.
    for await (const e of jsonElements(chunked(bytes, bytes.length), { where: 'the file', shapes: ['array'] })) got.push(e.value);
    expect(got).toEqual(values);
  });
});

describe('bad files', () => {
  const all = Object.entries(importers);

  it('100 MB of random bytes: refused after the first chunk, for every source', async () => {
    for (const [source, importer] of all) {
      const random = randomBytes(100 * 1024 * 1024);
      expect(await refusal(importer, random.chunks), source).toMatch(/^not a (Trakt export|Letterboxd export|Simkl backup): upload /);
      expect(random.seen.bytes, source).toBe(65536);
    }
  });

  it('an empty file', async () => {
    for (const [, importer] of all) expect(await refusal(importer, new Uint8Array(0))).toBe('the file is empty');
  });

  it('a truncated ZIP: refused, whether it ends inside a member or before the archive\'s end record', async () => {
    for (const [source, importer] of all) {
      const zip = fixtureZip(source as 'trakt');
      // Half way (inside a member), and inside the central directory (every member whole, the end record gone).
      for (const cut of [Math.floor(zip.length / 2), zip.length - 30]) {
        expect(await refusal(importer, zip.subarray(0, cut)), `${source} cut at ${cut}`).toBe(
          'the ZIP archive is truncated (it ends before its last file does): download the export again',
        );
      }
    }
  });

  it('a ZIP bomb: stops at the expansion cap, counting members no source reads too', async () => {
    const zeros = new Uint8Array(1024 * 1024);
    const bomb = streamedZip([
      ['watched-history.json', [Buffer.from('[]')]],
      ['padding.bin', { *[Symbol.iterator]() { for (let i = 0; i < 64; i++) yield zeros; } }],
    ]);
    expect(bomb.length).toBeLessThan(512 * 1024);
    const read = async () => {
      for await (const m of zipMembers(chunked(bomb, 65536), { maxExpandedBytes: 16 * 1024 * 1024 })) expect(m.name).not.toBe('');
    };
    await expect(read()).rejects.toThrow(new ImportFileError('the ZIP archive expands past 16 MB: not an export this service reads'));
    // The importers' cap.
    expect(MAX_EXPANDED_BYTES).toBe(256 * 1024 * 1024);
  });

  it('a ZIP whose member says it expands past the cap: refused at its header', async () => {
    const zip = zipSync({ 'diary.csv': Buffer.from('Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date\n') });
    // The local header's uncompressed size (offset 22) claims 300 MB.
    Buffer.from(zip.buffer, zip.byteOffset).writeUInt32LE(300 * 1024 * 1024, 22);
    expect(await refusal(importers.letterboxd, zip)).toBe('diary.csv in the ZIP archive expands past 256 MB');
  });

  it('a ZIP of something else, and a member that is not deflate data', async () => {
    expect(await refusal(importers.letterboxd, zipSync({ 'notes.txt': Buffer.from('hello') }))).toBe(
      'the ZIP archive is not a Letterboxd export: it holds none of diary.csv, watched.csv, ratings.csv, watchlist.csv, lists/*.csv',
    );
    expect(await refusal(importers.trakt, zipSync({ 'notes.txt': Buffer.from('hello') }))).toBe(
      'the ZIP archive holds none of the Trakt export\'s files (watched-history.json, ratings-*.json, watchlist-*.json, lists-*.json)',
    );
    const zip = zipSync({ 'watched-history.json': Buffer.from(JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ watched_at: `2024-01-01T00:00:${i}Z` })))) });
    // Overwrite the deflate data (after the 30-byte header and the 20-byte name) with bytes that are not deflate.
    zip.fill(0xff, 50, 80);
    expect(await refusal(importers.trakt, zip)).toMatch(/^watched-history\.json in the ZIP archive cannot be read \(/);
  });

  it('truncated or broken JSON', async () => {
    const history = fixtureFiles('trakt')['watched-history.json']!;
    expect(await refusal(importers.trakt, history.subarray(0, 700))).toBe('the file ends in the middle of the document: the file is truncated');
    expect(await refusal(importers.trakt, Buffer.from('[{"watched_at": "2024-01-01T00:00:00Z",, }]'))).toMatch(/^the file is not valid JSON \(/);
    const zip = zipSync({ 'ratings-movies.json': history.subarray(0, 700) });
    expect(await refusal(importers.trakt, zip)).toBe('ratings-movies.json ends in the middle of the document: the file is truncated');
  });

  it('one JSON element or string too large: refused before it is held', async () => {
    const big = `[{"watched_at": "2024-01-01T00:00:00Z", "type": "movie", "movie": {"title": "${'x'.repeat(5 * 1024 * 1024)}"}}]`;
    expect(await refusal(importers.trakt, Buffer.from(big))).toBe('the file: a text of more than 4 MB; not an export this service reads');
    const many = `[{"watched_at": "2024-01-01T00:00:00Z", "type": "movie", "movie": {"aliases": [${Array.from({ length: 300_000 }, () => '"abcdefghijklmn"').join(',')}]}}]`;
    expect(await refusal(importers.trakt, Buffer.from(many))).toBe('the file: element 1 is larger than 4 MB; not an export this service reads');
  });

  it('a CSV record longer than the cap', async () => {
    const zip = zipSync({ 'watchlist.csv': Buffer.from(`Date,Name,Year,Letterboxd URI\n2024-01-01,"${'x'.repeat(1100 * 1024)}",2001,u\n`) });
    expect(await refusal(importers.letterboxd, zip)).toBe('watchlist.csv: row 2 is longer than 1 MB; not an export this service reads');
  });
});
