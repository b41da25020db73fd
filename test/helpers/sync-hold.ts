// Holding a bulk sync write open between its writes and its commit (runBulkSync's beforeCommit, the
// app's ServerDeps.beforeSyncCommit): where tests kill, stop or race a batch in flight.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../src/core/db/sql.ts';
import { runBulkSync } from '../../src/core/sync/bulk.ts';
import { bodyHash } from '../../src/core/sync/idempotency.ts';
import { parseItems } from '../../src/rpc/routers/sync.ts';

/** A beforeCommit that calls `onHold`, then keeps the transaction open `ms` (pg_sleep, in the transaction). */
export function holdBeforeCommit(ms: number, onHold?: () => void): (tx: EntityManager) => Promise<void> {
  return async (tx) => {
    onHold?.();
    await query(tx, { text: 'select pg_sleep($1)', params: [ms / 1000] });
  };
}

/**
 * A bulk history write with `key` for the member's app, held open `ms` after its writes: `claimed`
 * resolves once it holds the key (its writes done, not committed), `applied` with its result.
 */
export function heldHistoryWrite(em: EntityManager, m: { userId: string; clientId: string }, items: unknown[], key: string, ms: number) {
  let claimed!: () => void;
  const isClaimed = new Promise<void>((r) => (claimed = r));
  const applied = runBulkSync(em, {
    ...parseItems('history', items),
    userId: m.userId,
    clientId: m.clientId,
    key,
    hash: bodyHash(items),
    now: new Date(),
    beforeCommit: holdBeforeCommit(ms, () => claimed()),
  });
  return { claimed: isClaimed, applied };
}
