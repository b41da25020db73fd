// A bulk write (POST /sync/{resource}): the idempotency key claimed, the items applied and the result
// recorded, all in one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { syncHistory } from './history.ts';
import { claimKey, recordResult } from './idempotency.ts';
import type { SyncItem } from './items.ts';
import { syncRatings } from './ratings.ts';
import type { ItemResult } from '../schema/sync.ts';
import { summarize, type BulkResult } from './results.ts';
import type { HistoryItem, RatingItem, WatchlistItem } from './schemas.ts';
import { syncWatchlist } from './watchlist.ts';

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

function apply(tx: EntityManager, req: BulkRequest): Promise<ItemResult[]> {
  switch (req.resource) {
    case 'history':
      return syncHistory(tx, req.userId, req.clientId, req.items, { statusRules: req.statusRules ?? true });
    case 'ratings':
      return syncRatings(tx, req.userId, req.items);
    case 'watchlist':
      return syncWatchlist(tx, req.userId, req.items);
  }
}

export function runBulkSync(em: EntityManager, req: BulkRequest): Promise<BulkResult> {
  const scope = { userId: req.userId, clientId: req.clientId, operation: req.resource, key: req.key };
  return transaction(em, async (tx) => {
    const stored = await claimKey(tx, scope, req.hash, req.now);
    if (stored) return { ...stored, idempotency_replayed: true };
    const result = summarize(await apply(tx, req));
    await recordResult(tx, scope, req.hash, result, req.now);
    await req.beforeCommit?.(tx);
    return { ...result, idempotency_replayed: false };
  });
}
