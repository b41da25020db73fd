// What a bulk write answers: the answer kept under its Idempotency-Key (schema/sync.ts: one result per
// item, in order, and the counters over them), and whether this is a replay of a kept answer.
import type { BulkCounters, ItemResult, ItemStatus, StoredBulkResult } from '../schema/sync.ts';

export type BulkResult = StoredBulkResult & { idempotency_replayed: boolean };

export function summarize(results: ItemResult[]): StoredBulkResult {
  const counters: BulkCounters = { inserted: 0, updated: 0, removed: 0, skipped: 0, invalid: 0, deferred: 0 };
  for (const r of results) counters[r.status] += 1;
  return { results, ...counters };
}

/** A result with every optional part null. */
export function itemResult(index: number, clientItemId: string | null, status: ItemStatus, over: Partial<ItemResult> = {}): ItemResult {
  return { client_item_id: clientItemId, index, status, id: null, reason: null, resolved_movie_db_id: null, error: null, ...over };
}
