// What an upload is, from its first bytes, before anything else is read: a ZIP archive, a JSON document
// or something else. A file of random bytes is refused after its first chunk, never read to the end.
import { ImportFileError } from '../records.ts';

export type Sniffed = { kind: 'zip' | 'json' | 'other'; chunks: AsyncIterable<Uint8Array> };

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) && (b[3] === 4 || b[3] === 6);

/** The first byte after a UTF-8 byte-order mark and white space, or undefined when there is none yet. */
function firstSignificant(b: Uint8Array): number | undefined {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d)) i++;
  return b[i];
}

/** The upload's kind and its whole content as a stream again (the bytes looked at are not lost). */
export async function sniff(file: AsyncIterable<Uint8Array>): Promise<Sniffed> {
  const iterator = file[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let kind: Sniffed['kind'] | undefined;
  // Enough bytes to decide: the 4-byte ZIP signature, or (past white space) a JSON opening bracket.
  while (kind === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.length === 0) continue;
    head.push(next.value);
    size += next.value.length;
    const joined = head.length === 1 ? next.value : Buffer.concat(head);
    const first = firstSignificant(joined);
    if (size >= 4 && isZip(joined)) kind = 'zip';
    else if (first === 0x5b || first === 0x7b) kind = 'json';
    else if (first !== undefined && size >= 4) kind = 'other';
    else if (size > 64 * 1024) kind = 'other'; // 64 KB of white space
  }
  if (size === 0) throw new ImportFileError('the file is empty');
  async function* replay() {
    try {
      yield* head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      await iterator.return?.();
    }
  }
  return { kind: kind ?? 'other', chunks: replay() };
}
