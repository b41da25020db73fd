// Where an uploaded file waits for its run: in the database, in chunks of CHUNK_BYTES, so whichever
// instance's job takes the run (or resumes it after a crash) reads the same bytes, and memory holds one
// chunk at a time on the way in and on the way out. The chunks are deleted when the run ends.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertChunk, readChunk } from './repository.ts';

// Read back, a chunk is one result message of twice its size (bytea comes as hex text): at 1 MiB a
// chunk, the buffers of those messages fragmented the process's native heap, and the peak RSS of an
// import grew with the file (figures: docs/performance.md, 'Import file chunks and peak RSS').
const CHUNK_BYTES = 64 * 1024;

/** The file passed the size cap; nothing of it is kept (the caller deletes the run). */
export class FileTooLarge extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`The file is over the ${formatBytes(maxBytes)} limit`);
    this.maxBytes = maxBytes;
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export type StoredFile = { size: number; sha256: string };

/** Stores the stream as the run's chunks, hashing it on the way; FileTooLarge past `maxBytes`. */
export async function storeFile(em: EntityManager, runId: string, stream: AsyncIterable<Uint8Array>, maxBytes: number): Promise<StoredFile> {
  const hash = createHash('sha256');
  let size = 0;
  let seq = 0;
  let parts: Buffer[] = [];
  let pending = 0;
  const flush = async () => {
    if (!pending) return;
    await insertChunk(em, runId, seq++, Buffer.concat(parts, pending));
    parts = [];
    pending = 0;
  };
  for await (const data of stream) {
    size += data.byteLength;
    if (size > maxBytes) throw new FileTooLarge(maxBytes);
    hash.update(data);
    let buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    while (buf.length) {
      const take = Math.min(buf.length, CHUNK_BYTES - pending);
      // Copied: the stream may reuse its buffer once this iteration ends.
      parts.push(Buffer.from(buf.subarray(0, take)));
      pending += take;
      buf = buf.subarray(take);
      if (pending === CHUNK_BYTES) await flush();
    }
  }
  await flush();
  return { size, sha256: hash.digest('hex') };
}

/** What a reading of the stored file has read so far (for progress). */
export type ReadCounter = { bytes: number };

/** The stored file as a stream of its chunks, read one at a time; `counter` follows the bytes handed out. */
export async function* readStoredFile(em: EntityManager, runId: string, counter: ReadCounter): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const data = await readChunk(em, runId, seq);
    if (!data) return;
    counter.bytes += data.byteLength;
    yield data;
  }
}
