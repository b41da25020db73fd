// The records of a CSV file, one at a time, from a byte stream (csv-parse): each a list of cells, with
// its 1-based position (the header row is 1; blank lines are not records). Cells keep their text exactly
// as written, a leading "=", "+", "-" or "@" included: the readers never evaluate a cell, and whatever
// writes one back out (the unmatched-rows download) escapes it there. A record longer than
// MAX_CSV_RECORD_CHARS is refused, so one endless quoted field cannot fill memory.
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { ImportFileError } from '../records.ts';
import { MAX_CSV_RECORD_CHARS, mb } from './limits.ts';

export type CsvRow = { row: number; cells: string[] };

export async function* csvRows(bytes: AsyncIterable<Uint8Array>, opts: { where: string }): AsyncGenerator<CsvRow> {
  const parser = parse({ bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, max_record_size: MAX_CSV_RECORD_CHARS });
  const source = Readable.from(bytes, { objectMode: false });
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser);
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) yield { row: ++row, cells };
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    // The parser reads ahead of what was yielded: its own count says which record failed.
    const failed = err instanceof CsvError && typeof (err as { records?: unknown }).records === 'number' ? (err as unknown as { records: number }).records + 1 : row + 1;
    if (err instanceof CsvError && err.code === 'CSV_MAX_RECORD_SIZE') throw new ImportFileError(`${opts.where}: row ${failed} is longer than ${mb(MAX_CSV_RECORD_CHARS)}; not an export this service reads`);
    throw new ImportFileError(`${opts.where} is not a readable CSV file (row ${failed}: ${(err as Error).message})`);
  } finally {
    source.destroy();
  }
}

/** Each header's position by name (exact names, as the export writes them). */
export function columns<const N extends string>(header: string[], names: readonly N[]): Record<N, number> {
  return Object.fromEntries(names.map((n) => [n, header.indexOf(n)])) as Record<N, number>;
}

/** A cell's text, or undefined when the column is absent or the cell empty. */
export const cell = (cells: string[], at: number): string | undefined => (at >= 0 && cells[at] !== '' ? cells[at] : undefined);
