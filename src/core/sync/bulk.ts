// A bulk write (POST /sync/{resource}): the items' titles found first (one query for the batch; those
// the catalog lacks fetched from the metadata provider when one is configured), then the idempotency key
// claimed, the items applied and the result recorded, all in one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitles } from '../catalog/fetch/registry.ts';
import { transaction } from '../db/transaction.ts';
import { historyItemType, syncHistory } from './history.ts';
import { claimKey, recordResult } from './idempotency.ts';
import { itemTitleRefs, type ItemTitleRef, type ItemTitles, type SyncItem } from './items.ts';
import { ratingItemType, syncRatings } from './ratings.ts';
import type { ItemResult } from '../schema/sync.ts';
import { summarize, type BulkResult } from './results.ts';
import type { HistoryItem, RatingItem, WatchlistItem } from './schemas.ts';
import { syncWatchlist, watchlistItemType } from './watchlist.ts';

/** The bulk-writable resources and the scope each needs. */
export const SYNC_WRITE_SCOPES = { history: 'history:write', ratings: 'ratings:write', watchlist: 'lists:write' } as const;

export type SyncResource = keyof typeof SYNC_WRITE_SCOPES;

export type BulkItems =
  | { resource: 'history'; items: SyncItem<HistoryItem>[] }
  | { resource: 'ratings'; items: SyncItem<RatingItem>[] }
  | { resource: 'watchlist'; items: SyncItem<WatchlistItem>[] };

export type BulkRequest = BulkItems & {
  userId: string;
  clientId: string;
  key: string;
  /** bodyHash() of the request's items: the same key with another body is a conflict. */
  hash: string;
  now: Date;
  /** History only: false, the watches leave show statuses as they are (logWatches). */
  statusRules?: boolean;
  /** Runs in the transaction once the writes and the result are recorded, before the commit. */
  beforeCommit?: ((tx: EntityManager) => Promise<void>) | undefined;
};

/** Each valid item's title reference, by the item's index, typed as its resource reads the item. */
export function bulkTitleRefs(req: BulkItems): Map<number, ItemTitleRef> {
  switch (req.resource) {
    case 'history':
      return itemTitleRefs(req.items, historyItemType);
    case 'ratings':
      return itemTitleRefs(req.items, ratingItemType);
    case 'watchlist':
      return itemTitleRefs(req.items, watchlistItemType);
  }
}

/**
 * The batch's titles, looked for before its transaction opens: a title the catalog lacks may be fetched
 * from the metadata provider meanwhile (waited for only outside a transaction: on the embedded database an
 * open one holds the only connection). The catalog's titles are never removed, so those found still stand
 * in the transaction.
 */
async function batchTitles(em: EntityManager, req: BulkItems): Promise<ItemTitles> {
  const refs = [...bulkTitleRefs(req)];
  // A title is fetched for an item that adds, not for a removal (nothing to remove where nothing is).
  const found = await resolveOrFetchTitles(em, refs.map(([, r]) => r.ref), { fetch: (i) => refs[i]![1].adds });
  return new Map(refs.map(([index], i) => [index, found[i] ?? null]));
}

function apply(tx: EntityManager, req: BulkRequest, titles: ItemTitles): Promise<ItemResult[]> {
  switch (req.resource) {
    case 'history':
      return syncHistory(tx, req.userId, req.clientId, req.items, titles, { statusRules: req.statusRules ?? true });
    case 'ratings':
      return syncRatings(tx, req.userId, req.items, titles);
    case 'watchlist':
      return syncWatchlist(tx, req.userId, req.items, titles);
  }
}

export async function runBulkSync(em: EntityManager, req: BulkRequest): Promise<BulkResult> {
  const scope = { userId: req.userId, clientId: req.clientId, operation: req.resource, key: req.key };
  const titles = await batchTitles(em, req);
  return transaction(em, async (tx) => {
    const stored = await claimKey(tx, scope, req.hash, req.now);
    if (stored) return { ...stored, idempotency_replayed: true };
    const result = summarize(await apply(tx, req, titles));
    await recordResult(tx, scope, req.hash, result, req.now);
    await req.beforeCommit?.(tx);
    return { ...result, idempotency_replayed: false };
  });
}
