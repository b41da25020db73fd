// One way to run a unit of work atomically: `transaction(em, async (tx) => ...)`. Inside, use only `tx`
// (db(tx), query(tx, ...)): on the embedded database a query on another connection while a transaction is open
// waits forever.
//
// Work that belongs to the whole transaction rather than to the statement that asked for it can be hung
// on it: `beforeCommit` runs once per key after the work, inside the transaction (a figure read then sees
// every write the work made, and a lock it takes is held for the shortest time); `afterCommit` runs once
// the transaction has committed (telling others about what now stands). A transaction nested in another
// (a savepoint) hands its hooks to the outer one when it succeeds, so they run when the outer one commits.
import type { EntityManager } from '@mikro-orm/postgresql';
import { IsolationLevel } from '@mikro-orm/core';

export type TransactionOptions = { isolation?: 'read committed' | 'repeatable read' | 'serializable' };

const LEVELS = {
  'read committed': IsolationLevel.READ_COMMITTED,
  'repeatable read': IsolationLevel.REPEATABLE_READ,
  serializable: IsolationLevel.SERIALIZABLE,
} as const;

type Hooks = { before: Map<string, (tx: EntityManager) => Promise<void>>; after: (() => Promise<void>)[] };

/** The hooks of each transaction started by transaction(), by its EntityManager. */
const hooksOf = new WeakMap<EntityManager, Hooks>();

export async function transaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const outer = hooksOf.get(em);
  // A transaction opened some other way (em.transactional) has no hooks: registering one in it throws,
  // rather than running before the outer transaction commits.
  const top = outer === undefined && !em.isInTransaction();
  const hooks: Hooks = { before: new Map(), after: [] };
  const result = await em.transactional(
    async (fork) => {
      const tx = fork as EntityManager;
      if (outer || top) hooksOf.set(tx, hooks);
      const value = await work(tx);
      if (top) await runBeforeCommit(tx, hooks);
      return value;
    },
    opts.isolation ? { isolationLevel: LEVELS[opts.isolation] } : {},
  );
  if (outer) {
    for (const [key, f] of hooks.before) if (!outer.before.has(key)) outer.before.set(key, f);
    outer.after.push(...hooks.after);
  } else if (top) {
    for (const f of hooks.after) await f();
  }
  return result;
}

/**
 * In key order, so transactions whose hooks take locks (each user's event log) take them in one order and
 * never wait on each other in a circle. A hook may add hooks; they run too.
 */
async function runBeforeCommit(tx: EntityManager, hooks: Hooks): Promise<void> {
  const done = new Set<string>();
  for (;;) {
    const key = [...hooks.before.keys()].filter((k) => !done.has(k)).sort()[0];
    if (key === undefined) return;
    done.add(key);
    await hooks.before.get(key)!(tx);
  }
}

function hooksFor(tx: EntityManager): Hooks {
  const hooks = hooksOf.get(tx);
  if (!hooks) throw new Error('commit hooks need a transaction started by transaction()');
  return hooks;
}

/** Runs `f` inside `tx` just before it commits, once per `key` (the first registration wins). */
export function beforeCommit(tx: EntityManager, key: string, f: (tx: EntityManager) => Promise<void>): void {
  const hooks = hooksFor(tx);
  if (!hooks.before.has(key)) hooks.before.set(key, f);
}

/**
 * Runs `f` once `tx` has committed (not at all if it rolls back). `f` must not throw: the write stands,
 * and its caller would be told it failed.
 */
export function afterCommit(tx: EntityManager, f: () => Promise<void>): void {
  hooksFor(tx).after.push(f);
}

/**
 * Runs `f` once what `em` wrote stands: after the commit of a transaction started by transaction()
 * (not at all if it rolls back), at once when `em` is in no transaction (its statement has committed),
 * and never in a transaction opened some other way (it cannot be told when that one commits). For
 * nudges that something else also catches later (a job's tick); `f` must not throw.
 */
export function whenCommitted(em: EntityManager, f: () => void): void {
  const hooks = hooksOf.get(em);
  if (hooks) hooks.after.push(async () => f());
  else if (!em.isInTransaction()) f();
}
