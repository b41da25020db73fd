// The counts of the ratings, favourites and statuses lists (user_library_count), by the filters their
// pages take: kept by the writes of ratings, favourites and statuses, read by the pages instead of
// counting every row. A count is a sum of deltas, so concurrent writers need no lock beyond the row's.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder } from 'kysely';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
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
  const counted: CountRow[] = rows.map((d) => ({ list: d.list, category: d.category, scope: d.scope, status: d.status, n: d.delta }));
  await k.executeQuery(addCountsOnce({ userId, rows: JSON.stringify(counted) }));
  // Only a count taken from can reach 0.
  if (rows.some((d) => d.delta < 0)) await k.executeQuery(removeEmptyCountsOnce(userId));
}

type CountRow = Omit<Count, 'user_id'>;

/**
 * The rows as one JSON parameter (recordset.ts), so one text whatever their number, built once
 * (compiled-once.ts): building and compiling it cost more than running it.
 */
const addCountsOnce = compiledOnce(
  ({ userId, rows }: { userId: string; rows: string }) =>
    offline
      .insertInto('user_library_count')
      .columns(['user_id', 'list', 'category', 'scope', 'status', 'n'])
      .expression((eb) =>
        eb
          .selectFrom(recordset<CountRow, 'r'>(rows, 'r', 'list text, category text, scope text, status text, n integer'))
          .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), 'r.list', 'r.category', 'r.scope', 'r.status', 'r.n']),
      )
      .onConflict((oc) => oc.columns(['user_id', 'list', 'category', 'scope', 'status']).doUpdateSet((eb) => ({ n: eb('user_library_count.n', '+', eb.ref('excluded.n')) }))),
  (p, value) => ({ userId: value(p.userId), rows: value(p.rows) }),
);

/** One text (compiled-once.ts). */
const removeEmptyCountsOnce = compiledOnce(
  (userId: string) => offline.deleteFrom('user_library_count').where('user_id', '=', userId).where('n', '=', 0),
  (userId, value) => value(userId),
);

/** The scope of a title-level item (a favourite, a status, a title-level rating): `title` for a movie, `series` for a show. */
const titleLevelScope = (type: Tables['title']['type']): Count['scope'] => (type === 'movie' ? 'title' : 'series');

/** A title as the counts of its favourite and status take it. */
export type CountedTitle = { category: Count['category']; type: Tables['title']['type'] };

/** The count a favourite of the title is in. */
export const favouriteCount = (t: CountedTitle): LibraryCountKey => ({ list: 'favourites', category: t.category, scope: titleLevelScope(t.type), status: '' });

/** The count a status of the title is in. */
export const statusCount = (t: CountedTitle, status: string): LibraryCountKey => ({ list: 'statuses', category: t.category, scope: titleLevelScope(t.type), status });

/** `key` moved by `delta`. */
export const countDelta = (key: LibraryCountKey, delta: number): LibraryCountDelta => ({ ...key, delta });

/**
 * Recomputes the user's counts of the three lists from their rows (user_rating, user_title_state, each
 * joined to title). The caller holds off the user's writes of ratings, favourites and statuses for the
 * transaction (the library's title-state lock): a write between the delete and the insert would be
 * counted twice or not at all.
 */
export async function rebuildLibraryCounts(tx: EntityManager, userId: string): Promise<void> {
  const k = db(tx);
  await k.deleteFrom('user_library_count').where('user_id', '=', userId).execute();
  const scopeOfTitle = (eb: ExpressionBuilder<{ t: Tables['title'] }, 't'>) =>
    eb.case('t.type').when('movie').then(eb.val<Count['scope']>('title')).else(eb.val<Count['scope']>('series')).end();
  const ratings = k
    .selectFrom('user_rating as r')
    .innerJoin('title as t', 't.id', 'r.title_id')
    .where('r.user_id', '=', userId)
    .groupBy(['t.category', 'r.scope'])
    .select((eb) => [
      eb.val<Count['list']>('ratings').as('list'),
      't.category',
      'r.scope',
      eb.val('').as('status'),
      eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
    ]);
  const favourites = k
    .selectFrom('user_title_state as st')
    .innerJoin('title as t', 't.id', 'st.title_id')
    .where('st.user_id', '=', userId)
    .where((eb) => eb.ref('st.is_favourite'))
    .groupBy(['t.category', 't.type'])
    .select((eb) => [eb.val<Count['list']>('favourites').as('list'), 't.category', scopeOfTitle(eb).as('scope'), eb.val('').as('status'), eb.cast<number>(eb.fn.countAll(), 'integer').as('n')]);
  const statuses = k
    .selectFrom('user_title_state as st')
    .innerJoin('title as t', 't.id', 'st.title_id')
    .where('st.user_id', '=', userId)
    .where('st.show_status', 'is not', null)
    .groupBy(['t.category', 't.type', 'st.show_status'])
    .select((eb) => [
      eb.val<Count['list']>('statuses').as('list'),
      't.category',
      scopeOfTitle(eb).as('scope'),
      // Never null here (the where above); the coalesce only types it as the count's status.
      eb.fn.coalesce('st.show_status', eb.val('')).as('status'),
      eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
    ]);
  await k
    .insertInto('user_library_count')
    .columns(['user_id', 'list', 'category', 'scope', 'status', 'n'])
    .expression((eb) =>
      eb
        .selectFrom(ratings.unionAll(favourites).unionAll(statuses).as('c'))
        .select((eb) => [eb.val(userId).as('user_id'), 'c.list', 'c.category', 'c.scope', 'c.status', 'c.n']),
    )
    .execute();
}
