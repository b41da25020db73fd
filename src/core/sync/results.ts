// What a bulk write answers: one result per item, in order, and the counters over them.
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

type BulkCounters = Record<'inserted' | 'updated' | 'removed' | 'skipped' | 'invalid' | 'deferred', number>;

export type BulkResult = BulkCounters & { results: ItemResult[]; idempotency_replayed: boolean };

export function summarize(results: ItemResult[]): Omit<BulkResult, 'idempotency_replayed'> {
  const counters: BulkCounters = { inserted: 0, updated: 0, removed: 0, skipped: 0, invalid: 0, deferred: 0 };
  for (const r of results) counters[r.status] += 1;
  return { results, ...counters };
}

/** A result with every optional part null. */
export function itemResult(index: number, clientItemId: string | null, status: ItemStatus, over: Partial<ItemResult> = {}): ItemResult {
  return { client_item_id: clientItemId, index, status, id: null, reason: null, resolved_movie_db_id: null, error: null, ...over };
}
