// The tables of imports of users' files: the runs, the stored file, the rows that did not go in.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

/**
 * One import of one uploaded file (import/run.ts says how a run moves between its states). The file itself
 * lives in import_chunk until the run ends; the rows that did not go in, in import_row.
 */
export const ImportRun = defineEntity({
  name: 'ImportRun',
  indexes: [
    { name: 'import_run_user', properties: ['user', 'id'] },
    { name: 'import_run_pending', where: 'status = ANY (ARRAY[\'queued\'::text, \'running\'::text])', properties: ['id'] },
  ],
  properties: {
    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    source: p.text(),
    status: p.enum(['receiving', 'queued', 'running', 'done', 'failed']),
    fileName: p.text(),
    /** Bytes of the stored file (0 while receiving). */
    fileSize: p.bigint('string').default('0'),
    /** sha256 of the file (hex), set once it is stored: the Idempotency-Keys of its batches derive from it. */
    fileSha256: p.text().nullable(),
    /** The checking pass read the whole file without an error (then the writing pass starts). */
    checked: p.boolean().default(false),
    /** Records the checking pass found (null until it ends). */
    recordsTotal: p.integer().nullable(),
    /** Bytes of the file the writing pass has read, as of its last committed batch. */
    bytesRead: p.bigint('string').default('0'),
    imported: p.integer().default(0),
    alreadyThere: p.integer().default(0),
    unmatched: p.integer().default(0),
    invalid: p.integer().default(0),
    /** Batches committed, by kind (`history`: 12): a resumed run skips them. */
    batchesDone: p.json<Record<string, number>>(),
    error: p.text().nullable(),
    /** The run holding the lease (a random token) and until when; null: free to take. */
    claim: p.uuid().nullable(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
});

/** The uploaded file of a run, in order, a chunk of up to CHUNK_BYTES (import/file-store.ts) per row. */
export const ImportChunk = defineEntity({
  name: 'ImportChunk',
  primaryKeys: ['run', 'seq'],
  properties: {
    run: () => p.manyToOne(ImportRun).primary().updateRule('no action').deleteRule('cascade'),
    seq: p.integer().primary(),
    data: p.blob(),
  },
});

/** A row of the file that did not go in: unmatched (kept for the download) or invalid (with why). */
export const ImportRow = defineEntity({
  name: 'ImportRow',
  indexes: [{ name: 'import_row_run', properties: ['run', 'id'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement().generated('identity'),
    run: () => p.manyToOne(ImportRun).updateRule('no action').deleteRule('cascade'),
    outcome: p.enum(['unmatched', 'invalid']),
    kind: p.text(),
    file: p.text(),
    row: p.integer(),
    label: p.text(),
    error: p.text().nullable(),
  },
});
