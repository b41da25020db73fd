// The statements on list items (list_item): writes (callers hold the list's row lock), the counts and
// preview posters stored on the list, the item pages and records (item-records.ts), and the titles of a
// dynamic list's filters.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import type { DynamicFilters } from './schemas.ts';

/**
 * The array's elements with their 1-based position, as a table `alias(value, ord)`.
 * raw: `unnest(...) with ordinality`, its column list and the bigint[] cast have no builder form.
 */
function withOrdinality<A extends string>(alias: A, ids: readonly string[]) {
  return sql<{ value: string; ord: string }>`unnest(${ids}::bigint[]) with ordinality`.as<A>(sql`${sql.table(alias)}(value, ord)`);
}

// ---- items by title

/** The list's items holding these titles (catalog row ids): title id -> item id. */
export async function itemIdsOfTitles(em: EntityManager, listId: string, titleIds: readonly string[]): Promise<Map<string, string>> {
  if (titleIds.length === 0) return new Map();
  const rows = await db(em)
    .selectFrom('list_item')
    .select(['id', 'title_id'])
    .where('list_id', '=', listId)
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
  return new Map(rows.map((r) => [String(r.title_id), String(r.id)]));
}

// ---- counts

/**
 * Recomputes item_count, the breakdown per category and the preview posters (list_preview_posters, the
 * migration's one definition of them) from the items themselves.
 */
function refreshCountsQuery(k: Kysely<Tables>, listId: string) {
  const counts = k
    .selectFrom('list_item as li')
    .innerJoin('title as t', 't.id', 'li.title_id')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.category', '=', 'movie'), 'integer').as('movies'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.category', '=', 'show'), 'integer').as('shows'),
      eb.cast<number>(eb.fn.countAll().filterWhere('t.category', '=', 'anime'), 'integer').as('anime'),
    ])
    .where('li.list_id', '=', listId);
  return k
    .updateTable('list as l')
    .from(counts.as('c'))
    .set((eb) => ({
      item_count: eb.ref('c.n'),
      movie_count: eb.ref('c.movies'),
      show_count: eb.ref('c.shows'),
      anime_count: eb.ref('c.anime'),
      preview_posters: eb.fn('list_preview_posters', ['l.id']),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('l.id', '=', listId);
}

/** Run after every item write: its text built once (compiled-once.ts). */
const refreshCountsOnce = compiledOnce(
  (p: { listId: string }) => refreshCountsQuery(offline, p.listId),
  (p, value) => ({ listId: value(p.listId) }),
);

export async function refreshCounts(tx: EntityManager, listId: string): Promise<void> {
  await db(tx).executeQuery(refreshCountsOnce({ listId }));
}

/** Only the preview posters (the first items in list order), after a reorder. */
export async function refreshPreview(tx: EntityManager, listId: string): Promise<void> {
  await db(tx)
    .updateTable('list')
    .set((eb) => ({ preview_posters: eb.fn('list_preview_posters', ['id']), updated_at: eb.fn<Date>('now') }))
    .where('id', '=', listId)
    .execute();
}

// ---- writes

/** How many of these titles the list holds already, and how many items it has. */
function countItemsQuery(k: Kysely<Tables>, listId: string, titleIds: readonly string[]) {
  return k
    .selectFrom('list_item')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere('title_id', '=', eb.fn.any(eb.val(titleIds))), 'integer').as('existing'),
      eb.cast<number>(eb.fn.countAll(), 'integer').as('total'),
    ])
    .where('list_id', '=', listId);
}

/** Run on every item add: its text built once (compiled-once.ts), the titles one array parameter. */
const countItemsOnce = compiledOnce(
  (p: { listId: string; titleIds: readonly string[] }) => countItemsQuery(offline, p.listId, p.titleIds),
  (p, value) => ({ listId: value(p.listId), titleIds: value(p.titleIds) }),
);

export async function countItems(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<{ existing: number; total: number }> {
  const row = (await db(tx).executeQuery(countItemsOnce({ listId, titleIds }))).rows[0];
  return row ?? { existing: 0, total: 0 };
}

/**
 * Appends the titles not yet in the list after its last position, in the given order: one row per title
 * given, in that order, with the item holding it and whether this inserted it.
 */
function appendTitlesQuery(k: Kysely<Tables>, listId: string, titleIds: readonly string[], addedBy: string | null) {
  return k
    .with('input', (qc) => qc.selectFrom(withOrdinality('r', titleIds)).select(['r.value as title_id', 'r.ord']))
    .with('base', (qc) =>
      qc
        .selectFrom('list_item')
        .select((eb) => eb.fn.coalesce(eb.fn.max('position'), eb.lit(0)).as('p'))
        .where('list_id', '=', listId),
    )
    .with('ins', (qc) =>
      qc
        .insertInto('list_item')
        .columns(['list_id', 'title_id', 'position', 'added_by'])
        .expression(
          qc
            .selectFrom('input as i')
            .crossJoin('base')
            .select((eb) => [eb.val(listId).as('list_id'), 'i.title_id', eb('base.p', '+', eb.ref('i.ord')).as('position'), eb.val(addedBy).as('added_by')])
            .where((eb) =>
              eb.not(eb.exists(eb.selectFrom('list_item as x').select(eb.lit(1).as('one')).where('x.list_id', '=', listId).whereRef('x.title_id', '=', 'i.title_id'))),
            )
            .orderBy('i.ord'),
        )
        .onConflict((oc) => oc.columns(['list_id', 'title_id']).doNothing())
        .returning(['id', 'title_id']),
    )
    .selectFrom('input as i')
    .leftJoin('ins', 'ins.title_id', 'i.title_id')
    .leftJoin('list_item as x', (join) => join.on('x.list_id', '=', listId).onRef('x.title_id', '=', 'i.title_id'))
    .select((eb) => ['i.title_id', eb.fn.coalesce('ins.id', 'x.id').as('id'), eb('ins.id', 'is not', null).as('inserted')])
    .orderBy('i.ord');
}

/** Run on every item add: its text built once (compiled-once.ts), the titles one array parameter and a null adder a parameter too. */
const appendTitlesOnce = compiledOnce(
  (p: { listId: string; titleIds: readonly string[]; addedBy: string | null }) => appendTitlesQuery(offline, p.listId, p.titleIds, p.addedBy),
  (p, value) => ({ listId: value(p.listId), titleIds: value(p.titleIds), addedBy: value(p.addedBy) }),
);

export async function appendTitles(tx: EntityManager, listId: string, titleIds: readonly string[], addedBy: string | null) {
  return (await db(tx).executeQuery(appendTitlesOnce({ listId, titleIds, addedBy }))).rows;
}

/** Sets when items were added (an import keeps the times they had elsewhere). */
export async function setItemsAddedAt(tx: EntityManager, listId: string, items: readonly { id: string; addedAt: Date }[]): Promise<void> {
  for (const i of items) await db(tx).updateTable('list_item').set({ added_at: i.addedAt }).where('list_id', '=', listId).where('id', '=', i.id).execute();
}

/** Deletes items by id; the ids deleted. */
export async function deleteItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<string[]> {
  const rows = await db(tx)
    .deleteFrom('list_item')
    .where('list_id', '=', listId)
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(itemIds))))
    .returning('id')
    .execute();
  return rows.map((r) => String(r.id));
}

/** Deletes the item holding a title; its id, or null when the title was not in the list. */
export async function deleteTitleItem(tx: EntityManager, listId: string, titleId: string): Promise<string | null> {
  const rows = await db(tx).deleteFrom('list_item').where('list_id', '=', listId).where('title_id', '=', titleId).returning('id').execute();
  return rows[0] ? String(rows[0].id) : null;
}

/** How many of these ids are items of the list. */
export async function countListItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<number> {
  const row = await db(tx)
    .selectFrom('list_item')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('list_id', '=', listId)
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(itemIds))))
    .executeTakeFirst();
  return row?.n ?? 0;
}

/** Renumbers the positions 1..n: the named items first, in the order given, then the others in their current order. */
export async function renumberItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<void> {
  await db(tx)
    .with('given', (qc) => qc.selectFrom(withOrdinality('g', itemIds)).select(['g.value as id', 'g.ord']))
    .with('ranked', (qc) =>
      qc
        .selectFrom('list_item as li')
        .leftJoin('given as g', 'g.id', 'li.id')
        .select((eb) => [
          'li.id',
          eb.fn
            .agg<string>('row_number')
            .over((ob) => ob.orderBy('g.ord', (o) => o.asc().nullsLast()).orderBy('li.position').orderBy('li.id'))
            .as('pos'),
        ])
        .where('li.list_id', '=', listId),
    )
    .updateTable('list_item as li')
    .from('ranked as r')
    .set((eb) => ({ position: eb.ref('r.pos') }))
    .whereRef('r.id', '=', 'li.id')
    .whereRef('li.position', '<>', 'r.pos')
    .execute();
}

/** Deletes the items whose title is not among these; the ids deleted. */
export async function deleteItemsExcept(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<string[]> {
  const rows = await db(tx)
    .deleteFrom('list_item')
    .where('list_id', '=', listId)
    .where((eb) => eb.not(eb('title_id', '=', eb.fn.any(eb.val(titleIds)))))
    .returning('id')
    .execute();
  return rows.map((r) => String(r.id));
}

/** Inserts the titles not in the list, each at its position in `titleIds`; the ids inserted. */
export async function insertTitlesAt(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<string[]> {
  const k = db(tx);
  const rows = await k
    .insertInto('list_item')
    .columns(['list_id', 'title_id', 'position'])
    .expression(k.selectFrom(withOrdinality('r', titleIds)).select((eb) => [eb.val(listId).as('list_id'), 'r.value', 'r.ord']))
    .onConflict((oc) => oc.columns(['list_id', 'title_id']).doNothing())
    .returning('id')
    .execute();
  return rows.map((r) => String(r.id));
}

/** Moves each title's item to the title's position in `titleIds`. */
export async function positionTitles(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<void> {
  await db(tx)
    .updateTable('list_item as li')
    .from(withOrdinality('r', titleIds))
    .set((eb) => ({ position: eb.ref('r.ord') }))
    .where('li.list_id', '=', listId)
    .whereRef('li.title_id', '=', 'r.value')
    .whereRef('li.position', '<>', 'r.ord')
    .execute();
}

export async function selectItemIds(tx: EntityManager, listId: string): Promise<string[]> {
  const rows = await db(tx).selectFrom('list_item').select('id').where('list_id', '=', listId).execute();
  return rows.map((r) => String(r.id));
}

// ---- item records (item-records.ts)

type ListItemRows = SelectQueryBuilder<Tables, 'list_item', Selectable<Tables['list_item']>>;

/**
 * The item columns over `items`, a subquery of list_item rows. Callers pick and limit the rows inside
 * that subquery, so the catalog join and the history probe run for one page only, whatever the
 * planner's statistics say about the list's size.
 */
function itemColumns(k: Kysely<Tables>, viewerId: string | null, items: ListItemRows) {
  return k
    .selectFrom(items.as('li'))
    .innerJoin('title as t', 't.id', 'li.title_id')
    .select((eb) => [
      'li.id',
      'li.position',
      't.movie_db_id',
      't.type',
      't.is_anime',
      't.name as title',
      't.poster_path',
      'li.added_at',
      eb.fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes', eb.lit(0)).as('runtime'),
      't.popularity',
      't.release_date',
      (viewerId === null
        ? eb.lit(false)
        : eb.exists(eb.selectFrom('watch_history as w').select(eb.lit(1).as('one')).where('w.user_id', '=', viewerId).whereRef('w.title_id', '=', 'li.title_id')).$castTo<boolean>()
      ).as('watched'),
    ])
    .orderBy('li.position')
    .orderBy('li.id');
}

/** These items of the list, as `viewerId` sees them, in list order. */
function itemsByIdQuery(k: Kysely<Tables>, listId: string, itemIds: readonly string[], viewerId: string | null) {
  const items = k
    .selectFrom('list_item')
    .selectAll()
    .where('list_id', '=', listId)
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(itemIds))));
  return itemColumns(k, viewerId, items);
}

/** Read on every item add (the answer and the change-feed records): its text built once per shape (compiled-once.ts); no viewer is the shape. */
const itemsByIdOnce = compiledOnce(
  (p: { listId: string; itemIds: readonly string[]; viewerId: string | null }) => itemsByIdQuery(offline, p.listId, p.itemIds, p.viewerId),
  (p, value) => ({ listId: value(p.listId), itemIds: value(p.itemIds), viewerId: p.viewerId === null ? null : value(p.viewerId) }),
);

export async function selectItemsById(em: EntityManager, listId: string, itemIds: readonly string[], viewerId: string | null) {
  return (await db(em).executeQuery(itemsByIdOnce({ listId, itemIds, viewerId }))).rows;
}

/** One page of the list's items after `after` (position, id): `limit + 1` rows (tells if more follow). */
export function itemPageQuery(k: Kysely<Tables>, listId: string, viewerId: string | null, after: [string, string] | null, limit: number) {
  let items = k.selectFrom('list_item').selectAll().where('list_id', '=', listId);
  if (after) items = items.where((eb) => eb(eb.refTuple('position', 'id'), '>', eb.tuple(after[0], after[1])));
  return itemColumns(k, viewerId, items.orderBy('position').orderBy('id').limit(limit + 1));
}

export function selectItemPage(em: EntityManager, listId: string, viewerId: string | null, after: [string, string] | null, limit: number) {
  return itemPageQuery(db(em), listId, viewerId, after, limit).execute();
}

// ---- dynamic lists

const DYNAMIC_ORDER = {
  popularity: [['t.popularity', 'desc'], ['t.id', 'asc']],
  rating: [['t.community_rating', 'desc'], ['t.vote_count', 'desc'], ['t.id', 'asc']],
  release_date: [['t.release_date', 'desc nulls last'], ['t.id', 'asc']],
  name: [['t.search_name', 'asc'], ['t.id', 'asc']],
} as const;

/** The titles of a dynamic list's filters, in the filters' sort order, at most `size`. */
export async function selectDynamicTitleIds(em: EntityManager, f: DynamicFilters): Promise<string[]> {
  let q = db(em).selectFrom('title as t').select('t.id');
  if (f.type) q = q.where('t.type', '=', f.type);
  if (f.anime !== undefined) q = q.where('t.is_anime', '=', f.anime);
  if (f.genres) {
    const genres = f.genres.map((g) => g.toLowerCase());
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom(eb.fn<{ g: string }>('unnest', ['t.genres']).as('g'))
          .select(eb.lit(1).as('one'))
          .where((eb) => eb(eb.fn<string>('lower', ['g.g']), '=', eb.fn.any(eb.val(genres)))),
      ),
    );
  }
  if (f.yearFrom !== undefined) q = q.where('t.year', '>=', f.yearFrom);
  if (f.yearTo !== undefined) q = q.where('t.year', '<=', f.yearTo);
  if (f.minRating !== undefined) q = q.where('t.community_rating', '>=', f.minRating);
  if (f.language) q = q.where('t.original_language', '=', f.language);
  for (const [column, direction] of DYNAMIC_ORDER[f.sort]) {
    q = direction === 'desc nulls last' ? q.orderBy(column, (ob) => ob.desc().nullsLast()) : q.orderBy(column, direction);
  }
  const rows = await q.limit(f.size).execute();
  return rows.map((r) => String(r.id));
}
