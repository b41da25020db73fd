// Writes one batch through the write paths the API uses, in the caller's transaction, and says what
// became of each record:
//   history, ratings, watchlist: the bulk-sync core (runBulkSync), with an Idempotency-Key derived from
//     the file and the batch's place in it; a replayed key (the same file within 24 hours) means every
//     record is already there, and later the writes' own duplicate rules say so (`skipped`);
//   show statuses and favourites: the ratings API's title-state writes (writeShowStatus, setFavourite);
//   lists: the lists module (createList, then its items as the item API adds them), a list of the same
//     name reused;
//   what only this service's own export carries (apply-own-kinds.ts), each through its module's writes.
// Every one of them records its change in the change feed.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ZodType } from 'zod';
import { catalogFetcherOf, ensureInCatalog } from '../catalog/fetch/registry.ts';
import { ApiError } from '../errors.ts';
import { libraryItems } from '../library/library-items.ts';
import { lockTitleStates, MOVIE_STATUSES, setFavourite, writeShowStatus } from '../library/title-state-write.ts';
import { itemWritableList } from '../lists/access.ts';
import { recordListWrite } from '../lists/changes.ts';
import { addTitles } from '../lists/items.ts';
import { createListInput } from '../lists/schemas.ts';
import { createList } from '../lists/write.ts';
import { bulkTitleRefs, runBulkSync, type BulkItems } from '../sync/bulk.ts';
import { bodyHash } from '../sync/idempotency.ts';
import type { SyncItem } from '../sync/items.ts';
import type { ItemResult } from '../schema/sync.ts';
import { historyItem, ratingItem, watchlistItem } from '../sync/schemas.ts';
import type { Batch } from './batches.ts';
import { applyOwnRecords, ownTitleRefs, type OwnOutcome } from './apply-own-kinds.ts';
import { fetchMissingImportTitles, resolveImportTitles, stateTitle } from './titles.ts';
import type { SourceRow } from './records.ts';
import { ownListNamed } from './repository.ts';

type Outcome = { status: 'imported' | 'already_there' } | { status: 'unmatched' } | { status: 'invalid'; error: string };

/** Each record's outcome (a list batch: each item's), in the batch's order, with where it came from. */
export type BatchOutcome = { at: SourceRow; outcome: Outcome }[];

export type BatchContext = {
  userId: string;
  clientId: string;
  fileSha256: string;
  now: Date;
  /** Whether imported watches move show statuses by the rules (not for this service's own export: it carries them). */
  statusRules: boolean;
};

/** The Idempotency-Key of a batch: the file, the kind and the batch's number. */
const batchKey = (sha256: string, b: Pick<Batch, 'kind' | 'index'>) => `import:${sha256}:${b.kind}:${b.index}`;

const BULK = {
  history: { resource: 'history', schema: historyItem },
  rating: { resource: 'ratings', schema: ratingItem },
  watchlist: { resource: 'watchlist', schema: watchlistItem },
} as const satisfies Record<string, { resource: BulkItems['resource']; schema: ZodType }>;

const zodText = (issues: readonly { path: PropertyKey[]; message: string }[]) =>
  issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');

/** What became of a bulk item: a replayed batch is already there, save what did not go in the first time. */
function bulkOutcome(r: ItemResult, replayed: boolean): Outcome {
  if (r.status === 'invalid') return { status: 'invalid', error: r.error ?? 'invalid' };
  if (r.status === 'deferred') return { status: 'unmatched' };
  if (replayed || r.status === 'skipped') return { status: 'already_there' };
  return { status: 'imported' };
}

type BulkBatch = Extract<Batch, { kind: 'history' | 'rating' | 'watchlist' }>;

/** The batch's records as the bulk-sync core takes them: each checked by its item schema. */
function bulkItems(batch: BulkBatch): BulkItems {
  const { resource, schema } = BULK[batch.kind];
  const items = batch.records.map(({ item }, index): SyncItem<unknown> => {
    const parsed = (schema as ZodType).safeParse(item);
    return parsed.success ? { index, clientItemId: null, ok: true, item: parsed.data } : { index, clientItemId: null, ok: false, error: zodText(parsed.error.issues) };
  });
  return { resource, items } as BulkItems;
}

async function writeBulk(tx: EntityManager, ctx: BatchContext, batch: BulkBatch): Promise<BatchOutcome> {
  const raw = batch.records.map((r) => r.item);
  const result = await runBulkSync(tx, {
    ...bulkItems(batch),
    userId: ctx.userId,
    clientId: ctx.clientId,
    key: batchKey(ctx.fileSha256, batch),
    hash: bodyHash(raw),
    now: ctx.now,
    statusRules: ctx.statusRules,
  } as Parameters<typeof runBulkSync>[1]);
  const byIndex = new Map(result.results.map((r) => [r.index, r]));
  return batch.records.map((rec, i) => ({ at: rec.at, outcome: bulkOutcome(byIndex.get(i)!, result.idempotency_replayed) }));
}


async function writeStatuses(tx: EntityManager, ctx: BatchContext, batch: Extract<Batch, { kind: 'show_status' }>): Promise<BatchOutcome> {
  const titles = await resolveImportTitles(tx, batch.records.map((r) => r.title), 'show');
  const out: BatchOutcome = [];
  for (const [i, rec] of batch.records.entries()) {
    const title = titles[i];
    if (!title) out.push({ at: rec.at, outcome: { status: 'unmatched' } });
    else if (title.type === 'movie' && !MOVIE_STATUSES.includes(rec.status)) {
      out.push({ at: rec.at, outcome: { status: 'invalid', error: `a movie's status is one of ${MOVIE_STATUSES.join(', ')}` } });
    } else {
      const changed = await writeShowStatus(tx, ctx.userId, stateTitle(title), rec.status, 'user');
      out.push({ at: rec.at, outcome: { status: changed ? 'imported' : 'already_there' } });
    }
  }
  return out;
}

async function writeFavourites(tx: EntityManager, ctx: BatchContext, batch: Extract<Batch, { kind: 'favourite' }>): Promise<BatchOutcome> {
  const titles = await resolveImportTitles(tx, batch.records.map((r) => r.title), 'movie');
  await lockTitleStates(tx, ctx.userId);
  const out: BatchOutcome = [];
  for (const [i, rec] of batch.records.entries()) {
    const title = titles[i];
    if (!title) {
      out.push({ at: rec.at, outcome: { status: 'unmatched' } });
      continue;
    }
    // setFavourite answers the favourite either way: whether it was one before says "already there".
    const [before] = await libraryItems(tx, ctx.userId, 'favourites', { titleId: title.id });
    await setFavourite(tx, ctx.userId, stateTitle(title), true);
    out.push({ at: rec.at, outcome: { status: before ? 'already_there' : 'imported' } });
  }
  return out;
}

/** A list name as the lists module takes it (1 to 100 characters, trimmed). */
function listName(name: string): string {
  const trimmed = name.trim().slice(0, 100).trim();
  return trimmed || 'Imported list';
}

async function writeListItems(tx: EntityManager, ctx: BatchContext, batch: Extract<Batch, { kind: 'list' }>): Promise<BatchOutcome> {
  const name = listName(batch.list.name);
  let listId = await ownListNamed(tx, ctx.userId, name);
  if (!listId) {
    const input = createListInput.parse({ name, description: (batch.list.description ?? '').slice(0, 2000) });
    listId = String((await createList(tx, ctx.userId, input)).id);
  }
  if (!batch.items.length) return [];
  const list = await itemWritableList(tx, listId, ctx.userId);
  const titles = await resolveImportTitles(tx, batch.items.map((i) => i.title), 'movie');
  let added;
  try {
    added = await addTitles(tx, list.id, titles.flatMap((t) => (t ? [t.id] : [])), ctx.userId);
  } catch (err) {
    // The list is full (MAX_LIST_ITEMS): the batch's items cannot go in; the rest of the file can.
    if (!(err instanceof ApiError)) throw err;
    return batch.items.map((item, i) => ({ at: item.at, outcome: titles[i] ? { status: 'invalid', error: err.message } : { status: 'unmatched' } }));
  }
  const byTitle = new Map(added.map((a) => [a.titleId, a]));
  const newIds = [...new Set(added.filter((a) => a.status === 'added').map((a) => a.id))];
  if (newIds.length) await recordListWrite(tx, list.id, { upsertedItems: newIds });
  // A title named twice is added once: the second mention is already there.
  const seen = new Set<string>();
  return batch.items.map((item, i) => {
    const title = titles[i];
    if (!title) return { at: item.at, outcome: { status: 'unmatched' } };
    const a = byTitle.get(title.id)!;
    const status = a.status === 'added' && !seen.has(a.id) ? 'imported' : 'already_there';
    seen.add(a.id);
    return { at: item.at, outcome: { status } };
  });
}

function ownOutcome(o: OwnOutcome): Outcome {
  if (o.status === 'unmatched') return { status: 'unmatched' };
  if (o.status === 'skipped') return { status: 'invalid', error: o.reason ?? 'refused' };
  return { status: o.status === 'unchanged' ? 'already_there' : 'imported' };
}

async function writeOwn(tx: EntityManager, ctx: BatchContext, batch: Extract<Batch, { kind: 'own' }>): Promise<BatchOutcome> {
  const outcomes = await applyOwnRecords(tx, ctx.userId, batch.records, { clientId: ctx.clientId });
  return outcomes.map((o) => ({ at: o.at, outcome: ownOutcome(o) }));
}

/**
 * Before the batch's transaction: the titles it names that the catalog lacks, fetched from the metadata
 * provider when one is configured, waiting for them at most `waitMs` (an import runs in the background,
 * so it can wait longer than a request). Without a provider, nothing (not even a query).
 */
export async function fetchBatchTitles(em: EntityManager, batch: Batch, waitMs: number): Promise<void> {
  if (!catalogFetcherOf(em)) return;
  switch (batch.kind) {
    case 'history':
    case 'rating':
    case 'watchlist':
      return ensureInCatalog(em, [...bulkTitleRefs(bulkItems(batch)).values()].flatMap((r) => (r.adds ? [r.ref] : [])), { waitMs });
    case 'show_status':
      return fetchMissingImportTitles(em, batch.records.map((r) => r.title), 'show', waitMs);
    case 'favourite':
      return fetchMissingImportTitles(em, batch.records.map((r) => r.title), 'movie', waitMs);
    case 'list':
      return fetchMissingImportTitles(em, batch.items.map((i) => i.title), 'movie', waitMs);
    case 'own':
      return fetchMissingImportTitles(em, ownTitleRefs(batch.records), 'movie', waitMs);
  }
}

/** Writes the batch in `tx` (the caller's transaction); what became of each record. */
export function writeBatch(tx: EntityManager, ctx: BatchContext, batch: Batch): Promise<BatchOutcome> {
  switch (batch.kind) {
    case 'history':
    case 'rating':
    case 'watchlist':
      return writeBulk(tx, ctx, batch);
    case 'show_status':
      return writeStatuses(tx, ctx, batch);
    case 'favourite':
      return writeFavourites(tx, ctx, batch);
    case 'list':
      return writeListItems(tx, ctx, batch);
    case 'own':
      return writeOwn(tx, ctx, batch);
  }
}
