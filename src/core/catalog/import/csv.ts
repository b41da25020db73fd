// A streaming RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and line breaks, and a
// record may span chunk boundaries. Records are yielded one at a time so a large file is never held
// parsed in memory. Lenient where real files are sloppy: text after a closing quote is kept, CRLF and LF
// both end a record, and blank lines are skipped.
import fs from 'node:fs';

const QUOTE = 34; // "
const COMMA = 44; // ,
const LF = 10; // \n
const CR = 13; // \r

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Just saw a quote inside a quoted field: a second quote is a literal, anything else closes the field. */
const QUOTE_SEEN = 3;

export async function* parseCsv(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  let record: string[] = [];
  let field = '';
  let state = FIELD_START;
  // Length of `field` that came from inside quotes; a trailing CR is stripped only after it.
  let quotedLength = 0;

  const endField = (value: string) => {
    record.push(value);
    field = '';
    quotedLength = 0;
    state = FIELD_START;
  };
  const endRecord = (value: string): string[] | undefined => {
    const last = value.length > quotedLength && value.charCodeAt(value.length - 1) === CR ? value.slice(0, -1) : value;
    endField(last);
    const done = record;
    record = [];
    return done.length === 1 && done[0] === '' ? undefined : done;
  };

  for await (const s of chunks) {
    // Start of the current field's text within this chunk (slices beat per-character concatenation).
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (state === QUOTED) {
        if (c === QUOTE) {
          field += s.slice(start, i);
          state = QUOTE_SEEN;
        }
        continue;
      }
      if (state === QUOTE_SEEN) {
        if (c === QUOTE) {
          field += '"';
          state = QUOTED;
          start = i + 1;
          continue;
        }
        quotedLength = field.length;
        state = UNQUOTED;
        start = i;
      }
      if (c === COMMA) {
        endField(field + s.slice(start, i));
        start = i + 1;
      } else if (c === LF) {
        const done = endRecord(field + s.slice(start, i));
        start = i + 1;
        if (done) yield done;
      } else if (c === QUOTE && state === FIELD_START) {
        state = QUOTED;
        start = i + 1;
      } else {
        state = UNQUOTED;
      }
    }
    if (state !== QUOTE_SEEN) field += s.slice(start);
  }
  if (state === QUOTE_SEEN) quotedLength = field.length;
  if (record.length > 0 || field !== '' || state === QUOTE_SEEN) {
    const done = endRecord(field);
    if (done) yield done;
  }
}

/** Reads a CSV file as records; the first record is usually the header. */
export function readCsvFile(file: string): AsyncGenerator<string[]> {
  return parseCsv(fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }));
}
