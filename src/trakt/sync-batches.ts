// A Trakt sync write's items through the service's bulk sync procedures (sync.history, sync.ratings,
// sync.watchlist), so their scope, their `sync-write` bucket, idempotency, the change feed and the live
// events apply exactly as to POST /sync/{resource} of the platform API.
//
// Those procedures take at most 100 items and an Idempotency-Key header each. Trakt's clients send no
// such key and bodies of any size, so a body is cut into batches of 100 and every batch gets its own key:
// - when the client sends an `Idempotency-Key`, the first batch uses it as it is and batch n (from 2)
//   `<key>:n`, so a retry of the same body with the same key replays each batch that committed and applies
//   the others once (a body without dates is dated now: a retry of it is another body, 409, unless it
//   sends its dates);
// - otherwise each batch gets a fresh random key: the request is then applied as Trakt applies one, once
//   per request (a retry without a key is a new write, as on Trakt).
// Each batch commits on its own: a body of 250 items that fails in its third batch keeps the first two.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { historyItem, ratingItem, watchlistItem } from '../core/sync/schemas.ts';
import type { TraktCall } from './route.ts';

const BATCH_SIZE = 100;

/** Each bulk procedure's item as a caller writes it. */
type BulkItemOf = { history: z.input<typeof historyItem>; ratings: z.input<typeof ratingItem>; watchlist: z.input<typeof watchlistItem> };
type BulkResource = keyof BulkItemOf;
type BulkInput<R extends BulkResource> = BulkItemOf[R];

/** A batch item's outcome: its status and reason as the procedure answers them. */
export type ItemOutcome = { status: 'inserted' | 'updated' | 'removed' | 'skipped' | 'invalid' | 'deferred'; reason: string | null; id: number | null };

function keyOf(clientKey: string | undefined, batch: number): string {
  if (clientKey === undefined) return randomUUID();
  return batch === 0 ? clientKey : `${clientKey}:${batch + 1}`;
}

/** Runs the items in batches; one outcome per item, in order. */
export async function runBulk<R extends BulkResource>(call: TraktCall, resource: R, items: BulkInput<R>[]): Promise<ItemOutcome[]> {
  const sent = call.req.headers['idempotency-key'];
  const clientKey = typeof sent === 'string' ? sent : undefined;
  const outcomes: ItemOutcome[] = [];
  for (let start = 0, batch = 0; start < items.length; start += BATCH_SIZE, batch++) {
    const procedures = call.proceduresWith({ 'idempotency-key': keyOf(clientKey, batch) });
    const chunk = items.slice(start, start + BATCH_SIZE);
    // The three procedures share one signature but TypeScript cannot call a union of them.
    const run = procedures.platform.sync[resource] as (input: { items: BulkInput<R>[] }) => Promise<{ results: (ItemOutcome & { index: number })[] }>;
    const answer = await run({ items: chunk });
    const byIndex = [...answer.results].sort((a, b) => a.index - b.index);
    outcomes.push(...byIndex.map((r) => ({ status: r.status, reason: r.reason, id: r.id })));
  }
  return outcomes;
}
