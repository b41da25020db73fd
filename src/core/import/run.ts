// An import run: one uploaded file read by its source's importer and written batch by batch.
//
//   receiving -- the upload is being stored (file-store.ts); not yet anyone's to run
//   queued    -- stored; the next tick of the `imports` job on any instance takes it
//   running   -- held under a lease (claim + lease_until) by one process: a job tick, for up to its time
//                budget, or the CLI, to the end. A holder that runs out of time gives the run back; one
//                that dies lets its lease lapse (LEASE_SECONDS). Either way the next tick resumes it.
//   done      -- every batch written; the file's chunks deleted
//   failed    -- the file could not be read (nothing written), or an error stopped the run (the counts say
//                what went in); the file's chunks deleted
//
// A run reads its file twice. The checking pass only reads: a file the importer refuses anywhere in it
// (wrong format, a ZIP cut short) fails the run before anything is written. The writing pass cuts the
// records into batches (batches.ts) and writes each in one transaction with its counts, its unmatched
// and invalid rows and the number of batches done of its kind: a run that stops anywhere has written
// whole batches and knows which, and resuming it reads the file again from the start, skipping those.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { batchesOf, type Batch } from './batches.ts';
import { readStoredFile, storeFile, type ReadCounter } from './file-store.ts';
import { IMPORTERS, type Importers } from './importers.ts';
import { ImportFileError, type ImportSource, type SourceRow } from './records.ts';
import {
  claimRun,
  deleteChunks,
  deleteRun,
  deleteStaleReceiving,
  finishRun,
  insertRows,
  insertRun,
  markChecked,
  markStored,
  nextClaimable,
  releaseRun,
  runById,
  tallyBatch,
  type BatchTally,
  type NewImportRow,
  type RunRow,
} from './repository.ts';
import { fetchBatchTitles, writeBatch, type BatchOutcome } from './write-batch.ts';

/** How long a holder keeps a run without committing a batch before another process may take it over. */
const LEASE_SECONDS = 60;

/**
 * How long a batch waits for the titles it names that the catalog lacks to be fetched from the metadata
 * provider (when one is configured) before it is written: longer than a request waits, as nobody is kept
 * waiting, and well within the lease. Titles not there by then are unmatched, as without a provider.
 */
const TITLE_FETCH_WAIT_MS = 30_000;

/** An upload that has not finished storing after this long died with its instance: it is deleted. */
const STALE_RECEIVING_SECONDS = 60 * 60;

/**
 * The client an import's writes are attributed to: history entries record it (`client_id`), and the
 * batches' Idempotency-Keys are kept per client. No app has such an id (theirs are `app_...`), so an
 * import never replays, or collides with, an app's keys.
 */
export const importClientId = (source: ImportSource) => `import:${source}`;

type Progress = { bytesRead: number; fileSize: number; imported: number; alreadyThere: number; unmatched: number; invalid: number };

export type RunOptions = {
  /** Stop (giving the run back) before the next batch once Date.now() passes this. */
  deadline?: number;
  /** After each committed batch. */
  onProgress?: (p: Progress) => void;
  log?: Logger;
  /** The importer of each source (default IMPORTERS, the real readers). */
  importers?: Importers;
};

/** How a turn at a run ended: finished either way, gave it back for later, or found it taken over. */
export type Turn = 'done' | 'failed' | 'paused' | 'lost';

class LostLease extends Error {}

/**
 * Stores an upload as a new run of the user's. Queued for the job; or, with `hold`, already running
 * under the caller's claim (the CLI runs it at once). FileTooLarge (file-store.ts) past `maxBytes`,
 * with nothing kept.
 */
export async function receiveFile(
  em: EntityManager,
  input: { userId: string; source: ImportSource; fileName: string; stream: AsyncIterable<Uint8Array>; maxBytes: number; hold?: boolean },
): Promise<{ runId: string; claim: string | null }> {
  const runId = await insertRun(em, { userId: input.userId, source: input.source, fileName: input.fileName.slice(0, 255) });
  let stored;
  try {
    stored = await storeFile(em, runId, input.stream, input.maxBytes);
  } catch (err) {
    await deleteRun(em, runId);
    throw err;
  }
  const claim = input.hold ? randomUUID() : null;
  await markStored(em, runId, stored, claim ? { claim, leaseSeconds: LEASE_SECONDS } : null);
  return { runId, claim };
}

const EMPTY: BatchTally = { imported: 0, alreadyThere: 0, unmatched: 0, invalid: 0 };

function tallyOf(outcome: BatchOutcome): BatchTally {
  const t = { ...EMPTY };
  for (const { outcome: o } of outcome) {
    if (o.status === 'imported') t.imported++;
    else if (o.status === 'already_there') t.alreadyThere++;
    else if (o.status === 'unmatched') t.unmatched++;
    else t.invalid++;
  }
  return t;
}

function rowsOf(kind: string, outcome: BatchOutcome): NewImportRow[] {
  const row = (at: SourceRow) => ({ kind, file: at.file.slice(0, 500), row: at.row, label: at.label.slice(0, 1000) });
  return outcome.flatMap(({ at, outcome: o }): NewImportRow[] => {
    if (o.status === 'unmatched') return [{ outcome: 'unmatched', ...row(at), error: null }];
    if (o.status === 'invalid') return [{ outcome: 'invalid', ...row(at), error: o.error.slice(0, 1000) }];
    return [];
  });
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Ends a run that could not go on: failed with `error`, its file deleted. */
async function fail(em: EntityManager, run: RunRow, claim: string, error: string): Promise<Turn> {
  if (!(await finishRun(em, run.id, claim, { status: 'failed', error: error.slice(0, 2000) }))) return 'lost';
  await deleteChunks(em, run.id);
  return 'failed';
}

/** The checking pass: reads every record, writes nothing. The count, or the importer's refusal. */
async function check(em: EntityManager, run: RunRow, importers: Importers): Promise<number | ImportFileError> {
  let count = 0;
  try {
    for await (const _ of importers[run.source as ImportSource](readStoredFile(em, run.id, { bytes: 0 }))) count++;
  } catch (err) {
    if (err instanceof ImportFileError) return err;
    throw err;
  }
  return count;
}

/** Takes a turn at a run the caller holds under `claim`: checks it if not yet checked, then writes what is left. */
export async function advanceRun(em: EntityManager, runId: string, claim: string, opts: RunOptions = {}): Promise<Turn> {
  const run = await runById(em, runId);
  if (!run) return 'lost';
  const source = run.source as ImportSource;
  const importers = opts.importers ?? IMPORTERS;
  if (!run.checked) {
    const checked = await check(em, run, importers);
    if (checked instanceof ImportFileError) return fail(em, run, claim, checked.message);
    if (!(await markChecked(em, run.id, claim, checked, LEASE_SECONDS))) return 'lost';
  }
  const counter: ReadCounter = { bytes: 0 };
  const done = { ...run.batches_done };
  const totals: BatchTally = { imported: run.imported, alreadyThere: run.already_there, unmatched: run.unmatched, invalid: run.invalid };
  // Our own export states every status (a status the user cleared is absent): the rules that give a
  // watched show one must not invent what the document does not hold.
  const ctx = { userId: run.user_id, clientId: importClientId(source), fileSha256: run.file_sha256!, now: new Date(), statusRules: source !== 'own' };
  try {
    for await (const batch of batchesOf(importers[source](readStoredFile(em, run.id, counter)))) {
      if (batch.index < (done[batch.kind] ?? 0)) continue;
      if (opts.deadline !== undefined && Date.now() > opts.deadline) {
        await releaseRun(em, run.id, claim);
        return 'paused';
      }
      // Outside the batch's transaction, which would hold the embedded database's only connection.
      await fetchBatchTitles(em, batch, TITLE_FETCH_WAIT_MS);
      const tally = await writeOne(em, run.id, claim, { ...ctx, now: new Date() }, batch, counter.bytes);
      done[batch.kind] = batch.index + 1;
      for (const k of Object.keys(tally) as (keyof BatchTally)[]) totals[k] += tally[k];
      opts.onProgress?.({ bytesRead: counter.bytes, fileSize: Number(run.file_size), ...totals });
    }
  } catch (err) {
    if (err instanceof LostLease) return 'lost';
    // Another process writes a batch of the same file for this user (the same file uploaded twice at
    // once): give the run back, the next tick goes on.
    if (err instanceof ApiError && err.code === 'request_in_progress') {
      await releaseRun(em, run.id, claim);
      return 'paused';
    }
    opts.log?.error({ run: run.id, err }, 'import run failed');
    const wentIn = totals.imported + totals.alreadyThere;
    const why = err instanceof ImportFileError ? err.message : `the import stopped: ${messageOf(err)}`;
    return fail(em, run, claim, `${why} (${wentIn} rows went in before it: importing the same file again finishes it)`);
  }
  if (!(await finishRun(em, run.id, claim, { status: 'done', error: null, bytesRead: Number(run.file_size) }))) return 'lost';
  await deleteChunks(em, run.id);
  return 'done';
}

/** One batch in one transaction: its writes, its rows and counts, and the run's progress. */
async function writeOne(em: EntityManager, runId: string, claim: string, ctx: Parameters<typeof writeBatch>[1], batch: Batch, bytesRead: number): Promise<BatchTally> {
  return transaction(em, async (tx) => {
    const outcome = await writeBatch(tx, ctx, batch);
    const tally = tallyOf(outcome);
    await insertRows(tx, runId, rowsOf(batch.kind, outcome));
    const ours = await tallyBatch(tx, runId, claim, { ...tally, kind: batch.kind, batchesDone: batch.index + 1, bytesRead, leaseSeconds: LEASE_SECONDS });
    // Taken over (this process stalled past its lease): the batch rolls back; the new holder writes it.
    if (!ours) throw new LostLease();
    return tally;
  });
}

export type TickSummary = { done: number; failed: number; paused: number; lost: number; staleUploads: number };

/**
 * One tick of the `imports` job: deletes uploads that died, then takes runs one after another (oldest
 * first, one run per user at a time) until `budgetMs` is spent; a run not finished by then is given back.
 */
export async function advanceImports(em: EntityManager, budgetMs: number, opts: Pick<RunOptions, 'log' | 'importers'> = {}): Promise<TickSummary> {
  const summary: TickSummary = { done: 0, failed: 0, paused: 0, lost: 0, staleUploads: await deleteStaleReceiving(em, STALE_RECEIVING_SECONDS) };
  const deadline = Date.now() + budgetMs;
  const tried = new Set<string>();
  while (Date.now() < deadline) {
    const runId = await nextClaimable(em);
    if (!runId || tried.has(runId)) break;
    tried.add(runId);
    const claim = randomUUID();
    if (!(await claimRun(em, runId, claim, LEASE_SECONDS))) continue;
    const turn = await advanceRun(em.fork(), runId, claim, { ...opts, deadline });
    summary[turn]++;
    if (turn === 'paused') break;
  }
  return summary;
}

export type ImportSummary = { run: string; status: 'done' | 'failed'; imported: number; alreadyThere: number; unmatched: number; invalid: number; error: string | null };

/**
 * Imports a file at once in this process (the admin CLI): stored as a run held by the
 * caller, then written to the end. The run is the page's kind of run: the user sees it on /account/import.
 */
export async function importNow(
  em: EntityManager,
  input: { userId: string; source: ImportSource; fileName: string; stream: AsyncIterable<Uint8Array>; maxBytes: number },
  opts: Omit<RunOptions, 'deadline'> = {},
): Promise<ImportSummary> {
  const { runId, claim } = await receiveFile(em, { ...input, hold: true });
  const turn = await advanceRun(em, runId, claim!, opts);
  if (turn === 'paused' || turn === 'lost') throw new Error(`import run ${runId} was taken over by another process; it goes on there`);
  const run = (await runById(em, runId))!;
  return {
    run: run.id,
    status: run.status as 'done' | 'failed',
    imported: run.imported,
    alreadyThere: run.already_there,
    unmatched: run.unmatched,
    invalid: run.invalid,
    error: run.error,
  };
}
