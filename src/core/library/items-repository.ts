// The reads of the ratings, favourites and statuses lists (library-items.ts): the rows of their items,
// and a page with its counts by kind in one statement.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type QueryCreator } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { prepared } from '../db/sql.ts';

type Scope = Tables['user_rating']['scope'];

export type LibraryList = 'ratings' | 'favourites' | 'statuses';

/** Narrows a list to rating / title-state ids, or to one title, or to some titles. */
export type ItemFilter = { ids?: string[]; titleId?: string; titleIds?: string[] };

/**
 * A page's filters, in the values of their columns: the title's category, the scope (the rating's; in
 * favourites and statuses the title-level one), the show status (statuses only).
 */
export type PageFilters = {
  type?: Tables['title']['category'] | undefined;
  scope?: Scope | undefined;
  status?: NonNullable<Tables['user_title_state']['show_status']> | undefined;
};

// Expressions over the title `t`, the same in every statement that joins it.
const te = expressionBuilder<{ t: Tables['title'] }, 't'>();
/** The scope of a title-level rating, favourite or status: `title` for a movie, `series` for a show. */
const titleLevelScope = te.case('t.type').when('movie').then('title' as Scope).else('series' as Scope).end();

// ---- ratings: one item per rating

function ratingItems(k: QueryCreator<Tables>, userId: string) {
  return k
    .selectFrom('user_rating as r')
    .innerJoin('title as t', 't.id', 'r.title_id')
    .where('r.user_id', '=', userId)
    .leftJoin('episode as e', (join) =>
      join.on('r.scope', '=', 'episode').onRef('e.title_id', '=', 'r.title_id').onRef('e.season_number', '=', 'r.season_number').onRef('e.episode_number', '=', 'r.episode_number'),
    )
    .leftJoin('user_title_state as st', (join) => join.onRef('st.user_id', '=', 'r.user_id').onRef('st.title_id', '=', 'r.title_id'))
    .select((eb) => [
      'r.id',
      'r.title_id',
      't.movie_db_id',
      't.category as kind',
      't.name',
      't.poster_path',
      't.backdrop_path',
      't.year',
      'r.scope',
      'r.season_number',
      'r.episode_number',
      eb.case().when('r.scope', '=', 'episode').then(eb.fn.coalesce('e.still_path', eb.val(''))).end().as('still_path'),
      eb.case().when('r.scope', '=', 'episode').then(eb.fn.coalesce('e.name', eb.val(''))).end().as('episode_title'),
      'r.rating',
      eb.fn.coalesce('st.is_favourite', eb.lit(false)).as('is_favourite'),
      'st.show_status',
      'r.rated_at',
      'st.favourited_at',
      'r.updated_at',
    ]);
}

// ---- favourites and statuses: one item per title state

/** Conditions as the lists' partial indexes state them (a bound value would not match the index). */
const se = expressionBuilder<{ st: Tables['user_title_state'] }, 'st'>();
const inList = (list: 'favourites' | 'statuses') => (list === 'favourites' ? se.ref('st.is_favourite') : se('st.show_status', 'is not', null));

function titleStateItems(k: QueryCreator<Tables>, userId: string, list: 'favourites' | 'statuses') {
  return k
    .selectFrom('user_title_state as st')
    .innerJoin('title as t', 't.id', 'st.title_id')
    .where('st.user_id', '=', userId)
    .where(inList(list))
    .leftJoin('user_rating as r', (join) => join.onRef('r.user_id', '=', 'st.user_id').onRef('r.title_id', '=', 'st.title_id').on('r.scope', '=', titleLevelScope))
    .select((eb) => [
      'st.id',
      'st.title_id',
      't.movie_db_id',
      't.category as kind',
      't.name',
      't.poster_path',
      't.backdrop_path',
      't.year',
      titleLevelScope.as('scope'),
      eb.cast<number | null>(eb.lit(null), 'integer').as('season_number'),
      eb.cast<number | null>(eb.lit(null), 'integer').as('episode_number'),
      eb.cast<string | null>(eb.lit(null), 'text').as('still_path'),
      eb.cast<string | null>(eb.lit(null), 'text').as('episode_title'),
      'r.rating',
      'st.is_favourite',
      'st.show_status',
      'r.rated_at',
      'st.favourited_at',
      'st.updated_at',
    ]);
}

/** The user's items of one list, narrowed to rating / title-state ids or to one title, by id. */
export async function listItemRows(em: EntityManager, userId: string, list: LibraryList, filter: ItemFilter) {
  const k = db(em);
  if (list === 'ratings') return (await k.executeQuery(ratingItemRowsOnce({ userId, filter }))).rows;
  return (await k.executeQuery(titleStateItemRowsOnce({ userId, list, filter }))).rows;
}

/** The filters present are the shape; their values (an array is one value) are parameters. */
const filterValues = (f: ItemFilter, value: <T>(v: T) => T): ItemFilter => ({
  ids: f.ids && value(f.ids),
  titleId: f.titleId && value(f.titleId),
  titleIds: f.titleIds && value(f.titleIds),
});

/** The rating items: one text per combination of filters (compiled-once.ts). */
const ratingItemRowsOnce = compiledOnce(
  ({ userId, filter }: { userId: string; filter: ItemFilter }) => {
    let q = ratingItems(offline, userId);
    if (filter.ids) q = q.where((eb) => eb('r.id', '=', eb.fn.any(eb.val(filter.ids!))));
    if (filter.titleId) q = q.where('t.id', '=', filter.titleId);
    if (filter.titleIds) q = q.where((eb) => eb('t.id', '=', eb.fn.any(eb.val(filter.titleIds!))));
    return q.orderBy('r.id');
  },
  (p, value) => ({ userId: value(p.userId), filter: filterValues(p.filter, value) }),
);

/** The favourite or status items: one text per list and combination of filters (compiled-once.ts). */
const titleStateItemRowsOnce = compiledOnce(
  ({ userId, list, filter }: { userId: string; list: 'favourites' | 'statuses'; filter: ItemFilter }) => {
    let q = titleStateItems(offline, userId, list);
    if (filter.ids) q = q.where((eb) => eb('st.id', '=', eb.fn.any(eb.val(filter.ids!))));
    if (filter.titleId) q = q.where('t.id', '=', filter.titleId);
    if (filter.titleIds) q = q.where((eb) => eb('t.id', '=', eb.fn.any(eb.val(filter.titleIds!))));
    return q.orderBy('st.id');
  },
  (p, value) => ({ userId: value(p.userId), list: p.list, filter: filterValues(p.filter, value) }),
);

export type ItemRow = Awaited<ReturnType<typeof listItemRows>>[number];

// ---- pages
//
// A page costs its rows, not the list: the counts come from the kept counts (user_library_count, one row
// per kind, scope and status), and the page's ids from the list's own index (user_rating_user_time,
// user_title_state_favourites, user_title_state_statuses; by scope user_rating_user_scope_time, by
// status user_title_state_status_lists), read in its order from whichever end of the list is nearer to
// the page: the counted total says how many rows lie after it, so the last pages skip as few index
// entries as the first ones. Only the page's ids are then joined with title and episode. The `type`
// filter (and the scope of favourites and statuses) is the title's: each index entry skipped over looks
// its title up by primary key.

/** The counts of a page's list under every filter but `type` (by kind), and under all of them (`total`). */
function pageCounts(k: QueryCreator<Tables>, userId: string, list: LibraryList, f: PageFilters) {
  let q = k.selectFrom('user_library_count as lc').where('lc.user_id', '=', userId).where('lc.list', '=', list);
  if (f.scope) q = q.where('lc.scope', '=', f.scope);
  if (list === 'statuses' && f.status) q = q.where('lc.status', '=', f.status);
  return q.select((eb) => {
    const sum = (kind?: Tables['title']['category']) =>
      eb.cast<number>(eb.fn.coalesce(kind ? eb.fn.sum<number>('lc.n').filterWhere('lc.category', '=', kind) : eb.fn.sum<number>('lc.n'), eb.lit(0)), 'integer');
    return [sum('movie').as('movie'), sum('show').as('show'), sum('anime').as('anime'), sum(f.type).as('total')];
  });
}

// A title's category, and the scope of its title-level items, looked up per row of a list's index: a
// scalar subquery is run for each row it filters (by the title's primary key), where a join could be
// planned as a hash join over every title.
const categoryOf = (titleId: 'r.title_id' | 'st.title_id') => expressionBuilder<Tables & { r: Tables['user_rating']; st: Tables['user_title_state'] }, 'r' | 'st'>().selectFrom('title as t').select('t.category').whereRef('t.id', '=', titleId);
const titleLevelScopeOf = expressionBuilder<Tables & { st: Tables['user_title_state'] }, 'st'>().selectFrom('title as t').select(titleLevelScope.as('scope')).whereRef('t.id', '=', 'st.title_id');

/** The row `span` of libraryPageQuery: where to read the page, from the newest end and from the oldest. */
type Span = { newest_limit: number; newest_offset: number; oldest_limit: number; oldest_offset: number };
const spanOf = (column: keyof Span) => expressionBuilder<{ span: Span }, never>().selectFrom('span').select(`span.${column}`);

/**
 * The ids of a list's rows under the page's filters, read from the newest end (`desc`, the list's order)
 * or from the oldest (`asc`), within the window of `span` for that end.
 */
function listIds(k: QueryCreator<Tables>, userId: string, list: LibraryList, f: PageFilters, direction: 'desc' | 'asc') {
  const end = direction === 'desc' ? 'newest' : 'oldest';
  const limit = spanOf(`${end}_limit`);
  const offset = spanOf(`${end}_offset`);
  if (list === 'ratings') {
    let q = k.selectFrom('user_rating as r').select('r.id').where('r.user_id', '=', userId);
    if (f.scope) q = q.where('r.scope', '=', f.scope);
    if (f.type) q = q.where(categoryOf('r.title_id'), '=', f.type);
    return q.orderBy('r.updated_at', direction).orderBy('r.id', direction).limit(limit).offset(offset);
  }
  let q = k
    .selectFrom('user_title_state as st')
    .select('st.id')
    .where('st.user_id', '=', userId)
    .where(inList(list));
  if (list === 'statuses' && f.status) q = q.where('st.show_status', '=', f.status);
  if (f.scope) q = q.where(titleLevelScopeOf, '=', f.scope);
  if (f.type) q = q.where(categoryOf('st.title_id'), '=', f.type);
  return q
    .orderBy(list === 'favourites' ? 'st.favourited_at' : 'st.show_status_at', direction)
    .orderBy('st.id', direction)
    .limit(limit)
    .offset(offset);
}

/**
 * One statement for a page: the counts by kind under every filter but `type`, and the page's rows (none
 * past the end: the counts' row still comes, its item columns null). One snapshot for both, so the
 * total that chooses the end to read from is the one the rows have. One text per list and combination of
 * filters (a few dozen): run as a named statement.
 *
 * The page is rows [offset, offset + limit) of the list newest first. Read from the newest end, that
 * skips `offset` index entries; from the oldest end, rows [total - offset - limit, total - offset) of
 * the list oldest first, skipping `total - offset - limit`. Both reads are in the statement; the one not
 * chosen has a limit of 0 and reads nothing.
 */
export function libraryPageQuery(k: QueryCreator<Tables>, userId: string, list: LibraryList, filters: PageFilters, page: PageWindow) {
  // `status` is a filter of the statuses list only (the only one whose counts are kept by status).
  const f = list === 'statuses' ? filters : { ...filters, status: undefined };
  const q = k
    .with('counts', (k) => pageCounts(k, userId, list, f))
    .with('span', (k) =>
      k
        .selectFrom((k) =>
          k
            .selectFrom('counts as c')
            .select((eb) => ['c.total', eb.cast<number>(eb.val(page.limit), 'integer').as('limit'), eb.cast<number>(eb.val(page.offset), 'integer').as('offset')])
            .as('w'),
        )
        .select((eb) => {
          // Rows of the list after the page, and whether fewer lie before it than after it.
          const after = eb(eb(eb.ref('w.total'), '-', eb.ref('w.offset')), '-', eb.ref('w.limit'));
          const fromNewest = eb('w.offset', '<=', after);
          return [
            eb.case().when(fromNewest).then(eb.ref('w.limit')).else(eb.lit(0)).end().as('newest_limit'),
            'w.offset as newest_offset',
            eb
              .case()
              .when(fromNewest)
              .then(eb.lit(0))
              .else(eb.fn<number>('greatest', [eb.fn('least', ['w.limit', eb(eb.ref('w.total'), '-', eb.ref('w.offset'))]), eb.lit(0)]))
              .end()
              .as('oldest_limit'),
            eb.fn<number>('greatest', [after, eb.lit(0)]).as('oldest_offset'),
          ];
        }),
    )
    .with('ids', (k) =>
      k
        .selectFrom(listIds(k, userId, list, f, 'desc').as('newest'))
        .select('newest.id')
        .unionAll(k.selectFrom(listIds(k, userId, list, f, 'asc').as('oldest')).select('oldest.id')),
    );
  // The page's rows by their ids (the primary key of user_rating, user_title_state_id_key): an array
  // computed once, so the rows are fetched by id whatever the planner guesses of their number.
  const pageIds = expressionBuilder<{ ids: { id: string } }, 'ids'>();
  const idsArray = pageIds.fn<string[]>('array', [pageIds.selectFrom('ids').select('ids.id')]);
  const rows =
    list === 'ratings'
      ? ratingItems(k, userId).where('r.id', '=', (eb) => eb.fn.any(idsArray)).orderBy('r.updated_at', 'desc').orderBy('r.id', 'desc')
      : titleStateItems(k, userId, list)
          .where('st.id', '=', (eb) => eb.fn.any(idsArray))
          .orderBy(list === 'favourites' ? 'st.favourited_at' : 'st.show_status_at', 'desc')
          .orderBy('st.id', 'desc');
  return q
    .selectFrom('counts as c')
    .leftJoinLateral(rows.as('p'), (join) => join.onTrue())
    .selectAll('p')
    .select(['c.movie as count_movie', 'c.show as count_show', 'c.anime as count_anime', 'c.total']);
}

/** The rows of a page: `limit` rows after the first `offset`. */
export type PageWindow = { limit: number; offset: number };

/** Page `page` (from 1) of `pageSize` rows. */
export const pageWindow = (page: number, pageSize: number): PageWindow => ({ limit: pageSize, offset: (page - 1) * pageSize });

/** libraryPageQuery's statement, its text built once per list and filters (compiled-once.ts). */
export const libraryPageStatement = compiledOnce(
  (p: { userId: string; list: LibraryList; f: PageFilters; page: PageWindow }) => libraryPageQuery(offline, p.userId, p.list, p.f, p.page),
  (p, value) => ({ ...p, userId: value(p.userId), page: { limit: value(p.page.limit), offset: value(p.page.offset) } }),
);

export function libraryPageRows(em: EntityManager, userId: string, list: LibraryList, f: PageFilters, page: PageWindow) {
  return prepared(em, libraryPageStatement({ userId, list, f, page }));
}
