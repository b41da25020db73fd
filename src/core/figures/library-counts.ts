// The counts of the ratings, favourites and statuses lists (user_library_count), by the filters their
// pages take: kept by the writes of ratings, favourites and statuses, read by the pages instead of
// counting every row. A count is a sum of deltas, so concurrent writers need no lock beyond the row's.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

type Count = Tables['user_library_count'];
export type LibraryCountKey = { list: Count['list']; category: Count['category']; scope: Count['scope']; status: string };
export type LibraryCountDelta = LibraryCountKey & { delta: number };

/** Adds the deltas (several for one key add up); a count that reaches 0 is removed. */
export async function applyLibraryCounts(tx: EntityManager, userId: string, deltas: readonly LibraryCountDelta[]): Promise<void> {
  const summed = new Map<string, LibraryCountDelta>();
  for (const d of deltas) {
    const key = `${d.list}/${d.category}/${d.scope}/${d.status}`;
    const prev = summed.get(key);
    summed.set(key, { ...d, delta: (prev?.delta ?? 0) + d.delta });
  }
  const rows = [...summed.values()].filter((d) => d.delta !== 0);
  if (rows.length === 0) return;
  const k = db(tx);
  await k
    .insertInto('user_library_count')
    .values(rows.map((d) => ({ user_id: userId, list: d.list, category: d.category, scope: d.scope, status: d.status, n: d.delta })))
    .onConflict((oc) => oc.columns(['user_id', 'list', 'category', 'scope', 'status']).doUpdateSet((eb) => ({ n: eb('user_library_count.n', '+', eb.ref('excluded.n')) })))
    .execute();
  await k.deleteFrom('user_library_count').where('user_id', '=', userId).where('n', '=', 0).execute();
}

/** Recomputes the user's list counts from the rows (placeholder until the full rebuild lands). */
export async function rebuildLibraryCounts(tx: EntityManager, userId: string): Promise<void> {
  void tx;
  void userId;
}
