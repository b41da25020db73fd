// The reads of the ratings, favourites and statuses lists (library-items.ts): the rows of their items,
// and a page with the counts by kind in one statement.
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

/** A page's filters, in the values of their columns: the title's category, the rating's scope, the show status. */
export type PageFilters = {
  type?: Tables['title']['category'] | undefined;
  scope?: Scope | undefined;
  status?: NonNullable<Tables['user_title_state']['show_status']> | undefined;
};

// Expressions over the title `t`, the same in every statement that joins it.
const te = expressionBuilder<{ t: Tables['title'] }, 't'>();
/** The scope of a title-level rating, favourite or status: `title` for a movie, `series` for a show. */
const titleLevelScope = te.case('t.type').when('movie').then('title' as Scope).else('series' as Scope).end();
/** The counts by kind of a list's rows under its filters (all but `type`). */
const kindCounts = (['movie', 'show', 'anime'] as const).map((kind) => te.cast<number>(te.fn.countAll().filterWhere('t.category', '=', kind), 'integer'));

// ---- ratings: one item per rating

function ratingRows(k: QueryCreator<Tables>, userId: string, f: PageFilters) {
  let q = k.selectFrom('user_rating as r').innerJoin('title as t', 't.id', 'r.title_id').where('r.user_id', '=', userId);
  if (f.scope) q = q.where('r.scope', '=', f.scope);
  return q;
}

function ratingItems(k: QueryCreator<Tables>, userId: string, f: PageFilters) {
  return ratingRows(k, userId, f)
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

function titleStateRows(k: QueryCreator<Tables>, userId: string, list: 'favourites' | 'statuses', f: PageFilters) {
  let q = k
    .selectFrom('user_title_state as st')
    .innerJoin('title as t', 't.id', 'st.title_id')
    .where('st.user_id', '=', userId)
    // Conditions as the lists' partial indexes state them (a bound value would not match the index).
    .where((eb) => (list === 'favourites' ? eb.ref('st.is_favourite') : eb('st.show_status', 'is not', null)));
  if (f.scope) q = q.where(titleLevelScope, '=', f.scope);
  if (f.status) q = q.where('st.show_status', '=', f.status);
  return q;
}

function titleStateItems(k: QueryCreator<Tables>, userId: string, list: 'favourites' | 'statuses', f: PageFilters) {
  return titleStateRows(k, userId, list, f)
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
export function listItemRows(em: EntityManager, userId: string, list: LibraryList, filter: ItemFilter) {
  const k = db(em);
  if (list === 'ratings') {
    let q = ratingItems(k, userId, {});
    if (filter.ids) q = q.where((eb) => eb('r.id', '=', eb.fn.any(eb.val(filter.ids!))));
    if (filter.titleId) q = q.where('t.id', '=', filter.titleId);
    if (filter.titleIds) q = q.where((eb) => eb('t.id', '=', eb.fn.any(eb.val(filter.titleIds!))));
    return q.orderBy('r.id').execute();
  }
  let q = titleStateItems(k, userId, list, {});
  if (filter.ids) q = q.where((eb) => eb('st.id', '=', eb.fn.any(eb.val(filter.ids!))));
  if (filter.titleId) q = q.where('t.id', '=', filter.titleId);
  if (filter.titleIds) q = q.where((eb) => eb('t.id', '=', eb.fn.any(eb.val(filter.titleIds!))));
  return q.orderBy('st.id').execute();
}

export type ItemRow = Awaited<ReturnType<typeof listItemRows>>[number];

/**
 * One statement for a page: the counts by kind under every filter but `type`, and the page's rows
 * (none past the end: the counts' row still comes, its item columns null). One text per list and
 * combination of filters (a few dozen): run as a named statement.
 */
export function libraryPageQuery(k: QueryCreator<Tables>, userId: string, list: LibraryList, f: PageFilters, page: PageWindow) {
  const [movies, shows, anime] = kindCounts;
  if (list === 'ratings') {
    let rows = ratingItems(k, userId, f);
    if (f.type) rows = rows.where('t.category', '=', f.type);
    return k
      .with('counts', (k) => ratingRows(k, userId, f).select([movies!.as('movie'), shows!.as('show'), anime!.as('anime')]))
      .selectFrom('counts as c')
      .leftJoinLateral(
        rows
          .orderBy('r.updated_at', 'desc')
          .orderBy('r.id', 'desc')
          .limit(page.limit)
          .offset(page.offset)
          .as('p'),
        (join) => join.onTrue(),
      )
      .selectAll('p')
      .select(['c.movie as count_movie', 'c.show as count_show', 'c.anime as count_anime']);
  }
  let rows = titleStateItems(k, userId, list, f);
  if (f.type) rows = rows.where('t.category', '=', f.type);
  return k
    .with('counts', (k) => titleStateRows(k, userId, list, f).select([movies!.as('movie'), shows!.as('show'), anime!.as('anime')]))
    .selectFrom('counts as c')
    .leftJoinLateral(
      rows
        .orderBy(list === 'favourites' ? 'st.favourited_at' : 'st.show_status_at', 'desc')
        .orderBy('st.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .as('p'),
      (join) => join.onTrue(),
    )
    .selectAll('p')
    .select(['c.movie as count_movie', 'c.show as count_show', 'c.anime as count_anime']);
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
