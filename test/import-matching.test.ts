// The importers' title matching against a seeded catalog (resolveImportTitles: the import's resolution,
// on the bulk-sync write path's resolveTitles): every title the fixture exports name resolves by its
// ids, else by name and year written the way the catalog writes it or another way (title_match_name:
// case, accents, punctuation, "&", a leading "The"), and the titles no catalog has resolve to nothing.
// Anime episodes by absolute number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEpisodes, resolveTitles, type TitleRef } from '../src/core/catalog/resolve.ts';
import type { ImportRecord, ImportTitleRef } from '../src/core/import/records.ts';
import { resolveImportTitles } from '../src/core/import/titles.ts';
import { importers } from '../src/core/import/sources/index.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { chunked, fixtureFiles, fixtureZip, seedImportCatalog } from './helpers/import-fixtures.ts';

let app: TestApp;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedImportCatalog(app);
});
afterAll(async () => {
  await app?.stop();
});

/** The title a record names, as the write path resolves it (an item with season/episode names a show). */
function titleOf(r: ImportRecord): ImportTitleRef[] {
  switch (r.kind) {
    case 'history':
      return [{ ...r.item, type: r.item.season != null || r.item.episode != null ? 'show' : 'movie' }];
    case 'rating':
    case 'watchlist':
      return [{ ...r.item, type: r.item.type ?? 'movie' }];
    case 'show_status':
    case 'favourite':
      return [r.title];
    case 'list':
      return r.items.map((i) => i.title);
    default:
      // The peers' readers yield none of the own export's kinds.
      return [];
  }
}

/** Each distinct title the records name (`type title (year)`) -> the catalog's movie_db_id, or null. */
async function matches(records: ImportRecord[]): Promise<Record<string, number | null>> {
  const titles = records.flatMap(titleOf);
  const resolved = await resolveImportTitles(em(), titles, 'movie');
  const out: Record<string, number | null> = {};
  titles.forEach((t, i) => (out[`${t.type ?? 'movie'} ${t.title} (${t.year ?? '-'})`] = resolved[i]?.movieDbId ?? null));
  return out;
}

async function read(importer: (typeof importers)['trakt'], bytes: Uint8Array): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const r of importer(chunked(bytes))) out.push(r);
  return out;
}

describe('the fixtures\' titles against the catalog', () => {
  it('Trakt: by movie database id, TV database id, film database id, then name and year', async () => {
    expect(await matches(await read(importers.trakt, fixtureZip('trakt')))).toEqual({
      'movie Spirited Away (2001)': 129,
      'show Breaking Bad (2008)': 1396, // by its movie database id
      'show Attack on Titan (2013)': 1429, // by its TV database id
      'movie Amélie (2001)': 194, // by its film database id
      'movie Toy Story (1995)': 862, // no ids: name and year
      'movie Harold and Kumar Go to White Castle (2004)': 11282, // "&" in the catalog
      'movie A Film Nobody Has (1999)': null,
    });
  });

  it('Letterboxd: name and year only, written another way than the catalog', async () => {
    expect(await matches(await read(importers.letterboxd, fixtureZip('letterboxd')))).toEqual({
      'movie Spirited Away (2001)': 129,
      'movie Amelie (2001)': 194, // "Amélie"
      'movie Crime & Punishment (2010)': 7000, // "Crime, and Punishment"
      'movie =HYPERLINK("https://example.invalid","click") (2020)': null,
      'movie Toy Story (1995)': 862,
      'movie A Film Nobody Has (1999)': null,
      'movie Harold and Kumar Go to White Castle (2004)': 11282,
      'movie Schindler’s List (1993)': 424, // "Schindler's List"
      'movie +SUM(1;2) (2021)': null,
    });
  });

  it('Simkl: ids as strings, anime by the anime database id, statuses\' shows by id', async () => {
    expect(await matches(await read(importers.simkl, fixtureFiles('simkl')['SimklBackup.json']!))).toEqual({
      'movie Spirited Away (2001)': 129,
      'movie Toy Story (1995)': 862,
      'movie A Film Nobody Has (1999)': null,
      'show Breaking Bad (2008)': 1396,
      'show Station of Cedar Falls (-)': 9_000_001,
      'show Kingsbridge Coast (-)': 9_000_002,
      'show Ashford Ward (-)': 9_000_003,
      'show The Quiet Circuit (-)': 9_000_004,
      'show Attack on Titan (2013)': 1429,
      'movie Your Name (2016)': 372058, // "Your Name." by its anime database id
    });
  });

  it('anime episodes by absolute number land in their season; specials by season 0', async () => {
    const [aot] = await resolveTitles(em(), [{ type: 'show', animeDbId: 16498 }]);
    const episodes = await resolveEpisodes(em(), [
      { titleId: aot!.id, absolute: 1 },
      { titleId: aot!.id, absolute: 26 },
      { titleId: aot!.id, season: 0, episode: 1 },
      { titleId: aot!.id, absolute: 38 },
    ]);
    expect(episodes.map((e) => e && [e.season, e.episode])).toEqual([[1, 1], [2, 1], [0, 1], null]);
  });
});

describe('name and year matching, normalised', () => {
  const movie = (title: string, year?: number): TitleRef => ({ type: 'movie', title, ...(year ? { year } : {}) });
  const show = (title: string, year?: number): TitleRef => ({ type: 'show', title, ...(year ? { year } : {}) });

  it('ignores case, accents, punctuation, "&" for "and", apostrophes, dots and a leading "The"', async () => {
    const refs = [
      movie('SPIRITED AWAY', 2001),
      movie('spirited-away', 2001),
      movie('Amelie', 2001),
      movie('AMÉLIE!', 2001),
      movie('Crime and Punishment', 2010),
      movie('Crime & Punishment', 2010),
      movie('Crime, & Punishment...', 2010),
      movie('Schindlers List', 1993),
      movie('Schindler’s List', 1993),
      movie('Harold and Kumar Go to White Castle', 2004),
      movie('Your Name', 2016),
      movie('The Toy Story', 1995),
      show('Quiet Circuit'),
      show('the quiet circuit'),
      show('Station of Cedar-Falls'),
      show('  Breaking   Bad  ', 2008),
    ];
    expect((await resolveTitles(em(), refs)).map((t) => t?.movieDbId ?? null)).toEqual([
      129, 129, 194, 194, 7000, 7000, 7000, 424, 424, 11282, 372058, 862, 9_000_004, 9_000_004, 9_000_001, 1396,
    ]);
  });

  it('still needs the year to agree, the type to agree, and the words to be the same words', async () => {
    const refs = [movie('Spirited Away', 2002), show('Spirited Away', 2001), movie('Spirited', 2001), movie('Toy Story 2', 1995), movie('Punishment and Crime', 2010), movie('!!!')];
    expect((await resolveTitles(em(), refs)).map((t) => t?.movieDbId ?? null)).toEqual([null, null, null, null, null, null]);
  });
});
