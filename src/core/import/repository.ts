// The statements of import runs (run.ts), their stored files (file-store.ts) and the rows that did not go in.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { jsonb } from '../db/json.ts';
import type { ImportSource } from './records.ts';

/** now() plus (or with a negative value, minus) `secs` seconds; make_interval's positional arguments are (years, months, weeks, days, hours, mins, secs). */
function secondsFromNow(secs: number) {
  const eb = expressionBuilder<Tables, never>();
  return eb(eb.fn<Date>('now'), '+', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(secs)]));
}

const RUN_COLUMNS = [
  'id', 'user_id', 'source', 'status', 'file_name', 'file_size', 'file_sha256', 'checked', 'records_total', 'bytes_read',
  'imported', 'already_there', 'unmatched', 'invalid', 'batches_done', 'error', 'created_at', 'started_at', 'finished_at',
] as const;


export async function insertRun(em: EntityManager, r: { userId: string; source: ImportSource; fileName: string }): Promise<string> {
  const row = await db(em)
    .insertInto('import_run')
    .values({ user_id: r.userId, source: r.source, file_name: r.fileName, status: 'receiving', batches_done: jsonb({}) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

export async function insertChunk(em: EntityManager, runId: string, seq: number, data: Buffer): Promise<void> {
  await db(em).insertInto('import_chunk').values({ run_id: runId, seq, data }).execute();
}

export async function readChunk(em: EntityManager, runId: string, seq: number): Promise<Uint8Array | undefined> {
  const row = await db(em).selectFrom('import_chunk').select('data').where('run_id', '=', runId).where('seq', '=', seq).executeTakeFirst();
  return row?.data;
}

export async function deleteChunks(em: EntityManager, runId: string): Promise<void> {
  await db(em).deleteFrom('import_chunk').where('run_id', '=', runId).execute();
}

export async function deleteRun(em: EntityManager, runId: string): Promise<void> {
  await db(em).deleteFrom('import_run').where('id', '=', runId).execute();
}

/**
 * The file is stored: queued for any instance's job, or (`claim`) held by the caller, which runs it now
 * (the CLI) under a lease of `leaseSeconds`.
 */
export async function markStored(
  em: EntityManager,
  runId: string,
  file: { size: number; sha256: string },
  hold: { claim: string; leaseSeconds: number } | null,
): Promise<void> {
  await db(em)
    .updateTable('import_run')
    .set((eb) => ({
      file_size: String(file.size),
      file_sha256: file.sha256,
      status: hold ? 'running' : 'queued',
      claim: hold?.claim ?? null,
      lease_until: hold ? secondsFromNow(hold.leaseSeconds) : null,
      started_at: hold ? eb.fn<Date>('now') : null,
    }))
    .where('id', '=', runId)
    .where('status', '=', 'receiving')
    .execute();
}

/**
 * The oldest run a job may take now: queued, or running without a live lease (its holder ran out of
 * time for this tick, or died), of a user with no other run under a live lease (one user's runs go one
 * at a time, oldest first).
 */
export async function nextClaimable(em: EntityManager): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('import_run as r')
    .select('r.id')
    .where((eb) =>
      eb.or([eb('r.status', '=', 'queued'), eb.and([eb('r.status', '=', 'running'), eb.or([eb('r.lease_until', 'is', null), eb('r.lease_until', '<', eb.fn<Date>('now'))])])]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('import_run as o')
            .select('o.id')
            .whereRef('o.user_id', '=', 'r.user_id')
            .whereRef('o.id', '<', 'r.id')
            .where('o.status', 'in', ['queued', 'running']),
        ),
      ),
    )
    .orderBy('r.id')
    .limit(1)
    .executeTakeFirst();
  return row ? String(row.id) : undefined;
}

/** Takes the run for `claim` (compare-and-set: only while no live lease holds it); the run, or undefined. */
export function claimRun(em: EntityManager, runId: string, claim: string, leaseSeconds: number) {
  return db(em)
    .updateTable('import_run')
    .set((eb) => ({
      status: 'running',
      claim,
      lease_until: secondsFromNow(leaseSeconds),
      started_at: eb.fn.coalesce('started_at', eb.fn<Date>('now')),
    }))
    .where('id', '=', runId)
    .where((eb) =>
      eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', eb.fn<Date>('now'))])])]),
    )
    .returning(RUN_COLUMNS)
    .executeTakeFirst();
}

export type BatchTally = { imported: number; alreadyThere: number; unmatched: number; invalid: number };

/**
 * Adds a committed batch to the run, in the batch's transaction, and renews the lease: whether the run
 * is still this claim's (if not, the caller rolls the batch back).
 */
export async function tallyBatch(
  tx: EntityManager,
  runId: string,
  claim: string,
  t: BatchTally & { kind: string; batchesDone: number; bytesRead: number; leaseSeconds: number },
): Promise<boolean> {
  const row = await db(tx)
    .updateTable('import_run')
    .set((eb) => ({
      imported: eb('imported', '+', t.imported),
      already_there: eb('already_there', '+', t.alreadyThere),
      unmatched: eb('unmatched', '+', t.unmatched),
      invalid: eb('invalid', '+', t.invalid),
      batches_done: eb(eb.ref('batches_done'), '||', jsonb({ [t.kind]: t.batchesDone })),
      bytes_read: eb.fn('greatest', ['bytes_read', eb.val(String(t.bytesRead))]),
      lease_until: secondsFromNow(t.leaseSeconds),
    }))
    .where('id', '=', runId)
    .where('claim', '=', claim)
    .where('status', '=', 'running')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The checking pass found no error: the record count, for progress. Whether the run is still this claim's. */
export async function markChecked(em: EntityManager, runId: string, claim: string, recordsTotal: number, leaseSeconds: number): Promise<boolean> {
  const row = await db(em)
    .updateTable('import_run')
    .set({ checked: true, records_total: recordsTotal, lease_until: secondsFromNow(leaseSeconds) })
    .where('id', '=', runId)
    .where('claim', '=', claim)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives the run back (this tick's time is up): any instance's next tick takes it again. */
export async function releaseRun(em: EntityManager, runId: string, claim: string): Promise<void> {
  await db(em).updateTable('import_run').set({ claim: null, lease_until: null }).where('id', '=', runId).where('claim', '=', claim).execute();
}

/** Ends the run (done or failed) if it is still this claim's; whether it was. */
export async function finishRun(em: EntityManager, runId: string, claim: string, end: { status: 'done' | 'failed'; error: string | null; bytesRead?: number }): Promise<boolean> {
  const row = await db(em)
    .updateTable('import_run')
    .set((eb) => ({
      status: end.status,
      error: end.error,
      claim: null,
      lease_until: null,
      finished_at: eb.fn<Date>('now'),
      ...(end.bytesRead !== undefined ? { bytes_read: eb.fn('greatest', ['bytes_read', eb.val(String(end.bytesRead))]) } : {}),
    }))
    .where('id', '=', runId)
    .where('claim', '=', claim)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export type NewImportRow = { outcome: 'unmatched' | 'invalid'; kind: string; file: string; row: number; label: string; error: string | null };

export async function insertRows(tx: EntityManager, runId: string, rows: readonly NewImportRow[]): Promise<void> {
  if (!rows.length) return;
  await db(tx)
    .insertInto('import_row')
    .values(rows.map((r) => ({ run_id: runId, outcome: r.outcome, kind: r.kind, file: r.file, row: r.row, label: r.label, error: r.error })))
    .execute();
}

/** The run, if it is this user's. */
export function userRun(em: EntityManager, userId: string, runId: string) {
  return db(em).selectFrom('import_run').select(RUN_COLUMNS).where('id', '=', runId).where('user_id', '=', userId).executeTakeFirst();
}

export function runById(em: EntityManager, runId: string) {
  return db(em).selectFrom('import_run').select(RUN_COLUMNS).where('id', '=', runId).executeTakeFirst();
}

export type RunRow = NonNullable<Awaited<ReturnType<typeof runById>>>;

/** The user's latest runs, newest first. */
export function userRuns(em: EntityManager, userId: string, limit: number) {
  return db(em).selectFrom('import_run').select(RUN_COLUMNS).where('user_id', '=', userId).where('status', '<>', 'receiving').orderBy('id', 'desc').limit(limit).execute();
}

/** The run's rows of one outcome after `afterId`, in file order of their writing. */
export function runRows(em: EntityManager, runId: string, outcome: 'unmatched' | 'invalid', afterId: string, limit: number) {
  return db(em)
    .selectFrom('import_row')
    .select(['id', 'kind', 'file', 'row', 'label', 'error'])
    .where('run_id', '=', runId)
    .where('outcome', '=', outcome)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Runs whose upload never finished (the instance receiving it died): deleted with what they stored. */
export async function deleteStaleReceiving(em: EntityManager, olderThanSeconds: number): Promise<number> {
  const r = await db(em).deleteFrom('import_run').where('status', '=', 'receiving').where('created_at', '<', secondsFromNow(-olderThanSeconds)).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The user's own plain list (not the watchlist) of exactly this name, the oldest if several: an import reuses it. */
export async function ownListNamed(tx: EntityManager, userId: string, name: string): Promise<string | undefined> {
  const row = await db(tx)
    .selectFrom('list')
    .select('id')
    .where('owner_id', '=', userId)
    .where('name', '=', name)
    .where('kind', '=', 'plain')
    .where('is_watchlist', '=', false)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row ? String(row.id) : undefined;
}
