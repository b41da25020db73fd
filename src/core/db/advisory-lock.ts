// Transaction-scoped advisory locks by name: the one way the service serialises a user's writers of one
// kind (their history, their library's kept figures, ...). Locks a transaction already holds are not
// asked for again, and the locks a write needs are taken in one statement, in the order given: writers
// that take several always name them in one order, so none waits on another in a circle.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { db } from './query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from './compiled-once.ts';
import { offline } from './compile.ts';

/** The lock names each open transaction holds (by its EntityManager, as transaction() hands it out). */
const held = new WeakMap<EntityManager, Set<string>>();

/** The statement that takes the locks `names`, left to right (PostgreSQL evaluates a select list in order). */
export function advisoryLocksQuery(k: Kysely<Tables>, names: readonly string[]) {
  return k.selectNoFrom((eb) => names.map((name, i) => eb.fn('pg_advisory_xact_lock', [eb.fn('hashtextextended', [eb.val(name), eb.lit(0)])]).as(`locked_${i}`)));
}

/** The statement compiled once per number of names (compiled-once.ts): every write takes a lock, and building it cost more than sending it. */
const locksOnce = compiledOnce(
  (names: readonly string[]) => advisoryLocksQuery(offline, names),
  (names, value) => names.map((n) => value(n)),
);

/** Takes, for the rest of `tx`'s transaction, the locks of `names` it does not hold yet (one statement, or none). */
export async function holdLocks(tx: EntityManager, names: readonly string[]): Promise<void> {
  const inTransaction = tx.isInTransaction();
  const mine = inTransaction ? (held.get(tx) ?? new Set<string>()) : new Set<string>();
  const missing = names.filter((n) => !mine.has(n));
  if (missing.length === 0) return;
  await db(tx).executeQuery(locksOnce(missing));
  if (!inTransaction) return;
  for (const n of missing) mine.add(n);
  held.set(tx, mine);
}
