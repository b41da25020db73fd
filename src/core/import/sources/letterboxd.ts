// Letterboxd's export ZIP (Settings, Import & Export, Export your data). Read from it:
//   diary.csv      Date, Name, Year, Letterboxd URI, Rating, Rewatch, Tags, Watched Date
//                  -> one watch per row at its Watched Date (a rewatch is a watch like any other)
//   watched.csv    Date, Name, Year, Letterboxd URI: every film marked watched
//                  -> one watch, at the Date it was marked, for each film the diary does not hold
//   ratings.csv    Date, Name, Year, Letterboxd URI, Rating (0.5 to 5 stars) -> rating = stars x 2
//   watchlist.csv  Date, Name, Year, Letterboxd URI -> watchlist
//   lists/*.csv    a list: "Letterboxd list export v7", a header block (Date, Name, Tags, URL,
//                  Description), a blank line, then the table Position, Name, Year, URL, Description
// Not read: the diary's own Rating column (a rating as it was that day; ratings.csv holds the current
// one), reviews, comments, likes, tags, profile, and the deleted/ and orphaned/ folders. Letterboxd's
// export carries no database ids: films match by name and year, as movies. A day has no time of day:
// a watch is logged at noon UTC of its day (fields.ts dayAtNoon).
import { ImportFileError, type ImportRecord, type Importer } from '../records.ts';
import { cell, columns, csvRows, type CsvRow } from './csv-rows.ts';
import { at, dayAtNoon, defined, label, year } from './fields.ts';
import { sniff } from './sniff.ts';
import { zipMembers } from './zip.ts';

const FILM = ['Date', 'Name', 'Year', 'Letterboxd URI'] as const;
const DIARY = [...FILM, 'Rating', 'Rewatch', 'Watched Date'] as const;
const LIST_ITEM = ['Position', 'Name', 'Year', 'URL', 'Description'] as const;

/** The folders of the export's root that are the export's own; any other first folder wraps the export. */
const EXPORT_FOLDERS = new Set(['lists', 'deleted', 'orphaned', 'likes']);

/** A member's path from the export's root (a ZIP re-made by hand may wrap it in one folder). */
function exportPath(name: string): string {
  const parts = name.split('/').filter((p) => p !== '');
  if (parts.length > 1 && !EXPORT_FOLDERS.has(parts[0]!)) parts.shift();
  return parts.join('/');
}

type Film = { name: string | undefined; year: number | undefined; uri: string | undefined };

const film = (cells: string[], c: Record<'Name' | 'Year' | 'Letterboxd URI', number>): Film => ({
  name: cell(cells, c.Name),
  year: year(cell(cells, c.Year)),
  uri: cell(cells, c['Letterboxd URI']),
});
const movie = (f: Film) => defined({ type: 'movie' as const, title: f.name, year: f.year });
const describe = (f: Film) => label(f.name, f.year, [f.uri]);
const filmKey = (f: Film) => `${f.name ?? ''}\u0000${f.year ?? ''}`;

/** The header row (row 1), checked for the columns the file must have. */
async function header<N extends string>(rows: AsyncIterator<CsvRow>, file: string, names: readonly N[], required: readonly N[]): Promise<Record<N, number>> {
  const first = await rows.next();
  const c = columns(first.done ? [] : first.value.cells, names);
  const missing = required.filter((n) => c[n] < 0);
  if (missing.length > 0) throw new ImportFileError(`${file} is not Letterboxd's: it has no ${missing.join(', ')} column`);
  return c;
}

/** Stars (0.5 to 5, in halves) on our 1-10 scale: twice the stars, so half a star is 1 and five are 10. */
export function starsToRating(stars: string | undefined): number | undefined {
  if (stars === undefined || !/^\d+(\.\d+)?$/.test(stars.trim())) return undefined;
  return Math.round(Number(stars) * 2);
}

async function* list(rows: AsyncIterator<CsvRow>, file: string): AsyncGenerator<ImportRecord> {
  const first = await rows.next();
  if (first.done || !/^Letterboxd list export/i.test(first.value.cells[0] ?? '')) throw new ImportFileError(`${file} is not a Letterboxd list export (its first line is not "Letterboxd list export")`);
  let meta: { c: Record<'Name' | 'Description', number>; values: CsvRow } | null = null;
  let table: Record<(typeof LIST_ITEM)[number], number> | null = null;
  const items: Extract<ImportRecord, { kind: 'list' }>['items'] = [];
  for (let next = await rows.next(); !next.done; next = await rows.next()) {
    const { row, cells } = next.value;
    if (table) {
      const f = { name: cell(cells, table.Name), year: year(cell(cells, table.Year)), uri: cell(cells, table.URL) };
      items.push({ title: movie(f), note: cell(cells, table.Description) ?? null, at: at(file, row, describe(f)) });
    } else if (cells.includes('Position') && cells.includes('Name')) {
      table = columns(cells, LIST_ITEM);
    } else if (!meta && cells.includes('Name')) {
      const values = await rows.next();
      if (values.done) break;
      meta = { c: columns(cells, ['Name', 'Description'] as const), values: values.value };
    }
  }
  if (!table) throw new ImportFileError(`${file} is not a Letterboxd list export (no Position, Name, Year table)`);
  const name = (meta && cell(meta.values.cells, meta.c.Name)) ?? file.replace(/^lists\//, '').replace(/\.csv$/, '');
  const description = (meta && cell(meta.values.cells, meta.c.Description)) ?? null;
  yield { kind: 'list', name, description, items, at: at(file, meta?.values.row ?? 1, name) };
}

async function* fromZip(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  let known = 0;
  // watched.csv repeats the diary's films; its rows wait for the diary when it comes later in the ZIP.
  const diaryFilms = new Set<string>();
  let diaryRead = false;
  const watchedWaiting: ImportRecord[] = [];
  const watchedKeys: string[] = [];

  for await (const member of zipMembers(chunks)) {
    const file = exportPath(member.name);
    const isList = /^lists\/[^/]+\.csv$/.test(file);
    if (!isList && !['diary.csv', 'watched.csv', 'ratings.csv', 'watchlist.csv'].includes(file)) continue;
    known++;
    const rows = csvRows(member.body, { where: file })[Symbol.asyncIterator]();
    if (isList) {
      yield* list(rows, file);
      continue;
    }
    const c = await header(rows, file, DIARY, ['Name']);
    for (let next = await rows.next(); !next.done; next = await rows.next()) {
      const { row, cells } = next.value;
      const f = film(cells, c);
      const where = at(file, row, describe(f));
      if (file === 'diary.csv') {
        diaryFilms.add(filmKey(f));
        yield { kind: 'history', item: defined({ title: f.name, year: f.year, watched_at: dayAtNoon(cell(cells, c['Watched Date']) ?? cell(cells, c.Date)) ?? '' }), at: where };
      } else if (file === 'watched.csv') {
        const record: ImportRecord = { kind: 'history', item: defined({ title: f.name, year: f.year, watched_at: dayAtNoon(cell(cells, c.Date)) ?? '' }), at: where };
        if (!diaryRead) {
          watchedWaiting.push(record);
          watchedKeys.push(filmKey(f));
        } else if (!diaryFilms.has(filmKey(f))) yield record;
      } else if (file === 'ratings.csv') {
        const rating = starsToRating(cell(cells, c.Rating));
        if (rating !== undefined) yield { kind: 'rating', item: defined({ ...movie(f), rating, rated_at: dayAtNoon(cell(cells, c.Date)) }), at: where };
      } else {
        yield { kind: 'watchlist', item: movie(f), at: where };
      }
    }
    if (file === 'diary.csv') diaryRead = true;
  }
  if (known === 0) throw new ImportFileError('the ZIP archive is not a Letterboxd export: it holds none of diary.csv, watched.csv, ratings.csv, watchlist.csv, lists/*.csv');
  for (const [i, record] of watchedWaiting.entries()) if (!diaryFilms.has(watchedKeys[i]!)) yield record;
}

export const letterboxdImporter: Importer = async function* (file) {
  const { kind, chunks } = await sniff(file);
  if (kind !== 'zip') throw new ImportFileError('not a Letterboxd export: upload the ZIP file Letterboxd gives (Settings, Import & Export, Export your data)');
  yield* fromZip(chunks);
};
