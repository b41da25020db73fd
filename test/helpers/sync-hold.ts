// Holding a bulk sync write open between its writes and its commit (runBulkSync's beforeCommit, the
// app's ServerDeps.beforeSyncCommit): where tests kill, stop or race a batch in flight.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../src/core/db/sql.ts';

/** A beforeCommit that calls `onHold`, then keeps the transaction open `ms` (pg_sleep, in the transaction). */
export function holdBeforeCommit(ms: number, onHold?: () => void): (tx: EntityManager) => Promise<void> {
  return async (tx) => {
    onHold?.();
    await query(tx, { text: 'select pg_sleep($1)', params: [ms / 1000] });
  };
}
