// The members of a ZIP archive, one after the other as the upload streams in (fflate's streaming Unzip:
// local headers are read in order, the central directory at the end is not needed). Each member's body is
// a stream of inflated bytes; a consumer reads a member's body before asking for the next member (what
// it leaves unread is skipped). Bounded: input goes to the inflater in small pieces (limits.ts), the
// inflated total is capped (a ZIP bomb stops at the cap, not at the end of memory), and an archive that
// ends before its last member or its end-of-archive record is truncated.
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { ImportFileError } from '../records.ts';
import { MAX_EXPANDED_BYTES, MAX_ZIP_MEMBERS, ZIP_PIECE_BYTES, mb } from './limits.ts';

export type ZipMember = { name: string; body: AsyncIterable<Uint8Array> };

type Event =
  | { t: 'member'; name: string }
  | { t: 'data'; bytes: Uint8Array; final: boolean }
  | { t: 'error'; message: string };

/** The end-of-central-directory record's signature: every complete archive ends with it. */
const END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

const TRUNCATED = 'the ZIP archive is truncated (it ends before its last file does): download the export again';

export async function* zipMembers(input: AsyncIterable<Uint8Array>, opts: { maxExpandedBytes?: number } = {}): AsyncGenerator<ZipMember> {
  const cap = opts.maxExpandedBytes ?? MAX_EXPANDED_BYTES;
  const events: Event[] = [];
  let expanded = 0;
  let members = 0;
  let failure: string | null = null;

  const unzip = new Unzip((file: UnzipFile) => {
    members++;
    if (members > MAX_ZIP_MEMBERS) failure ??= `the ZIP archive holds more than ${MAX_ZIP_MEMBERS} files`;
    if (file.originalSize !== undefined && file.originalSize > cap) failure ??= `${file.name} in the ZIP archive expands past ${mb(cap)}`;
    events.push({ t: 'member', name: file.name });
    file.ondata = (err, bytes, final) => {
      if (err) {
        events.push({ t: 'error', message: `${file.name} in the ZIP archive cannot be read (${err.message})` });
        return;
      }
      expanded += bytes.length;
      if (expanded > cap) failure ??= `the ZIP archive expands past ${mb(cap)}: not an export this service reads`;
      events.push({ t: 'data', bytes, final });
    };
    // Every member is inflated, even those no source reads: fflate keeps an unstarted member's
    // compressed bytes until the end, and the cap must count what each member really holds.
    file.start();
  });
  unzip.register(UnzipInflate);

  const source = input[Symbol.asyncIterator]();
  let ended = false;
  // The last 3 bytes of the previous piece, so the end signature is found across pieces.
  let tail = new Uint8Array(0);
  let sawEnd = false;

  const push = (piece: Uint8Array, final: boolean) => {
    try {
      unzip.push(piece, final);
    } catch (err) {
      throw new ImportFileError(final ? TRUNCATED : `the ZIP archive cannot be read (${(err as Error).message})`);
    }
    if (failure) throw new ImportFileError(failure);
  };
  const findEnd = (piece: Uint8Array) => {
    const joined = Buffer.concat([tail, piece]);
    if (joined.indexOf(END_SIGNATURE) >= 0) sawEnd = true;
    tail = joined.subarray(Math.max(0, joined.length - 3));
  };

  /** The next event, pushing more input into the inflater until there is one; null at the end. */
  const next = async (): Promise<Event | null> => {
    while (events.length === 0) {
      if (ended) return null;
      const chunk = await source.next();
      if (chunk.done) {
        ended = true;
        push(new Uint8Array(0), true);
        if (!sawEnd) throw new ImportFileError(TRUNCATED);
        continue;
      }
      for (let at = 0; at < chunk.value.length; at += ZIP_PIECE_BYTES) {
        const piece = chunk.value.subarray(at, at + ZIP_PIECE_BYTES);
        findEnd(piece);
        push(piece, false);
      }
    }
    return events.shift()!;
  };

  try {
    let current: { done: boolean } | null = null;
    for (;;) {
      // Skip what the consumer left unread of the previous member.
      while (current && !current.done) {
        const e = await next();
        if (e === null) throw new ImportFileError(TRUNCATED);
        if (e.t === 'error') throw new ImportFileError(e.message);
        if (e.t === 'data' && e.final) current.done = true;
      }
      const e = await next();
      if (e === null) return;
      if (e.t === 'error') throw new ImportFileError(e.message);
      if (e.t !== 'member') continue;
      const member = { done: false };
      current = member;
      const name = e.name;
      async function* body(): AsyncGenerator<Uint8Array> {
        while (!member.done) {
          const d = await next();
          if (d === null) throw new ImportFileError(TRUNCATED);
          if (d.t === 'error') throw new ImportFileError(d.message);
          if (d.t !== 'data') throw new ImportFileError(`${name} in the ZIP archive ends early`);
          if (d.final) member.done = true;
          if (d.bytes.length > 0) yield d.bytes;
        }
      }
      yield { name, body: body() };
    }
  } finally {
    await source.return?.();
  }
}
