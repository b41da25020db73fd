// The importers' fixture files (test/fixtures/import: a Trakt export's JSON files, a Letterboxd export's
// CSV files, a Simkl backup) as the uploads a user makes, and a catalog holding their titles.
import fs from 'node:fs';
import path from 'node:path';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { importCatalog } from '../../src/core/catalog/import/index.ts';
import type { CatalogSource, ImportSeason, ImportTitle } from '../../src/core/catalog/import/types.ts';
import type { TestApp } from './app.ts';
import { seedCatalog } from './seed.ts';

const IMPORT_FIXTURES = path.resolve(import.meta.dirname, '../fixtures/import');

/** The files of a fixture folder, by their path inside it ('/'-separated), sorted. */
export function fixtureFiles(folder: 'trakt' | 'letterboxd' | 'simkl'): Record<string, Uint8Array> {
  const root = path.join(IMPORT_FIXTURES, folder);
  const files: Record<string, Uint8Array> = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(root, full).split(path.sep).join('/')] = fs.readFileSync(full);
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}

/** A ZIP of the fixture folder's files, in `order` when given (then the rest), each under `prefix`. */
export function fixtureZip(folder: 'trakt' | 'letterboxd' | 'simkl', opts: { order?: string[]; prefix?: string } = {}): Uint8Array {
  const files = fixtureFiles(folder);
  const names = [...(opts.order ?? []), ...Object.keys(files).filter((n) => !opts.order?.includes(n))];
  return zipSync(Object.fromEntries(names.map((n) => [`${opts.prefix ?? ''}${n}`, files[n]!])));
}

/** An upload as a stream of `size`-byte chunks. */
export async function* chunked(bytes: Uint8Array, size = 1000): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** A ZIP made as a stream (sizes after each member, as streaming zippers write them) of the given members. */
export function streamedZip(members: [string, Iterable<Uint8Array>][]): Uint8Array {
  const out: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    out.push(data);
  });
  for (const [name, chunks] of members) {
    const file = new ZipDeflate(name, { level: 1 });
    zip.add(file);
    for (const c of chunks) file.push(c);
    file.push(new Uint8Array(0), true);
  }
  zip.end();
  return Buffer.concat(out);
}

const seasons = (counts: number[], specials: string[]): ImportSeason[] => {
  let absolute = 0;
  return [
    { seasonNumber: 0, name: 'Specials', episodes: specials.map((name, i) => ({ episodeNumber: i + 1, name })) },
    ...counts.map((n, s) => ({
      seasonNumber: s + 1,
      name: `Season ${s + 1}`,
      episodes: Array.from({ length: n }, (_, e) => ({ episodeNumber: e + 1, absoluteNumber: ++absolute, name: `Episode ${e + 1}` })),
    })),
  ];
};

const base = { source: 'test', overview: 'Synthetic test data.' };

/** Titles the fixtures name beside the movie fixture's and the synthetic shows (ids as the sources write them). */
const IMPORT_TITLES: ImportTitle[] = [
  { ...base, type: 'movie', movieDbId: 194, isAnime: false, name: 'Amélie', year: 2001, filmDbId: 'tt0211915' },
  { ...base, type: 'movie', movieDbId: 11282, isAnime: false, name: 'Harold & Kumar Go to White Castle', year: 2004 },
  { ...base, type: 'movie', movieDbId: 424, isAnime: false, name: 'Schindler\'s List', year: 1993 },
  { ...base, type: 'movie', movieDbId: 372058, isAnime: true, name: 'Your Name.', year: 2016, animeDbId: 32281 },
  { ...base, type: 'show', movieDbId: 1396, isAnime: false, name: 'Breaking Bad', year: 2008, tvDbId: 81189, filmDbId: 'tt0903747', seasons: seasons([7, 13, 13], ['Good Cop Bad Cop']) },
  { ...base, type: 'show', movieDbId: 1429, isAnime: true, name: 'Attack on Titan', year: 2013, tvDbId: 267440, animeDbId: 16498, seasons: seasons([25, 12], ['Ilse\'s Notebook']) },
];

/** The test catalog (fixture movies, five synthetic shows) and IMPORT_TITLES. */
export async function seedImportCatalog(app: TestApp): Promise<void> {
  await seedCatalog(app, { shows: 5 });
  const source: CatalogSource = {
    name: 'test',
    async *items() {
      yield* IMPORT_TITLES;
    },
  };
  await importCatalog(app.db.orm.em.fork(), [source]);
}
