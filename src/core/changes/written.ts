// What the change log's writers tell the rest of the process: that changes will stand once their
// transaction commits. Listeners (this process's webhook deliverer) act on the commit, so a change goes
// out within moments rather than at the deliverer's next tick; a change whose commit cannot be seen
// (a transaction not opened by transaction()) waits for that tick.
import type { EntityManager } from '@mikro-orm/postgresql';
import { whenCommitted } from '../db/transaction.ts';

const listeners = new Set<() => void>();
/** Transactions already to nudge on commit: several writes of changes in one transaction are one nudge. */
const pending = new WeakSet<EntityManager>();

/** Called by every writer of change_log rows, with the EntityManager that wrote them. */
export function changesWritten(em: EntityManager): void {
  if (listeners.size === 0 || pending.has(em)) return;
  if (em.isInTransaction()) pending.add(em);
  whenCommitted(em, () => {
    for (const listener of listeners) listener();
  });
}

/** Calls `listener` after each commit that wrote changes, until the returned function is called. */
export function onChangesCommitted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
