// One way to run a unit of work atomically: `transaction(em, async (tx) => ...)`. Inside, use only `tx`
// (db(tx), query(tx, ...)): on the embedded database a query on another connection while a transaction is open
// waits forever.
import type { EntityManager } from '@mikro-orm/postgresql';
import { IsolationLevel } from '@mikro-orm/core';

export type TransactionOptions = { isolation?: 'read committed' | 'repeatable read' | 'serializable' };

const LEVELS = {
  'read committed': IsolationLevel.READ_COMMITTED,
  'repeatable read': IsolationLevel.REPEATABLE_READ,
  serializable: IsolationLevel.SERIALIZABLE,
} as const;

export function transaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  return em.transactional((tx) => work(tx as EntityManager), opts.isolation ? { isolationLevel: LEVELS[opts.isolation] } : {});
}
