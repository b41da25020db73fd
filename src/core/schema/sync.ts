// The table of bulk sync writes kept under their Idempotency-Key, and the shape of what they answered.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

/** What a bulk write did with one item (sync/results.ts builds them). */
export type ItemStatus = 'inserted' | 'updated' | 'removed' | 'skipped' | 'invalid' | 'deferred';

/**
 * Why an item was skipped or deferred: `duplicate` (already there: the same watch within the dedup
 * window, the title already on the watchlist), `unchanged` (the same rating was already set), `absent`
 * (a removal of something that was not there), `unmatched` (the title, or the show's episode or season,
 * is not in the catalog: resend it later).
 */
type ItemReason = 'duplicate' | 'unchanged' | 'absent' | 'unmatched';

export type ItemResult = {
  client_item_id: string | null;
  index: number;
  status: ItemStatus;
  id: number | null;
  reason: ItemReason | null;
  resolved_movie_db_id: number | null;
  error: string | null;
};

export type BulkCounters = Record<ItemStatus, number>;

/** A bulk write's answer as kept under its Idempotency-Key (sync_idempotency.result): one result per item, in order, and the counters over them. */
export type StoredBulkResult = BulkCounters & { results: ItemResult[] };

export const SyncIdempotency = defineEntity({
  name: 'SyncIdempotency',
  primaryKeys: ['user', 'clientId', 'operation', 'idempotencyKey'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    clientId: p.text().primary(),

    operation: p.text().primary(),

    idempotencyKey: p.text().primary(),

    bodyHash: p.text(),

    result: p.json<StoredBulkResult>(),

    createdAt: p.datetime().index('sync_idempotency_created_at'),
  },
});
