// The export's statements: each resource of one user in keyset pages (a page starts strictly after the
// last row of the one before), every row with its title's ids, name and year. The readers of each module
// answer the API's shapes (poster paths, counts, no catalog ids but the movie database's); the export
// needs every id the catalog knows instead, so it reads the same tables here.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { CW_TTL_DAYS } from '../playback/continue-watching.ts';

/** The title columns of every exported row (title `t`). */
const TITLE_COLUMNS = ['t.type', 't.category', 't.movie_db_id', 't.tv_db_id', 't.film_db_id', 't.anime_db_id', 't.external_ids', 't.name', 't.year'] as const;
export type TitleColumns = Pick<Tables['title'], 'type' | 'category' | 'movie_db_id' | 'tv_db_id' | 'film_db_id' | 'anime_db_id' | 'name' | 'year'> & {
  external_ids: unknown;
};

/** Watches oldest first, by (watched_at, id); `after` is the last row's watched_at to the microsecond (text) and id. */
export function historyRows(em: EntityManager, userId: string, after: [string, string] | null, limit: number) {
  let q = db(em)
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .select(TITLE_COLUMNS)
    .select((eb) => [
      'w.id',
      'w.season_number',
      'w.episode_number',
      'w.watched_at',
      'w.runtime_minutes',
      // watched_at to the microsecond for the keyset (a Date keeps milliseconds only).
      eb.fn<string>('to_char', [eb.fn('timezone', [eb.val('UTC'), eb.ref('w.watched_at')]), eb.val('YYYY-MM-DD"T"HH24:MI:SS.US"Z"')]).as('position_at'),
    ])
    .where('w.user_id', '=', userId);
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('w.watched_at', 'w.id'), '>', eb.tuple(eb.cast<Date>(eb.val(after[0]), 'timestamptz'), eb.cast<string>(eb.val(after[1]), 'bigint'))));
  }
  return q.orderBy('w.watched_at').orderBy('w.id').limit(limit).execute();
}

/** Ratings by id. */
export function ratingRows(em: EntityManager, userId: string, afterId: string, limit: number) {
  return db(em)
    .selectFrom('user_rating as r')
    .innerJoin('title as t', 't.id', 'r.title_id')
    .select(TITLE_COLUMNS)
    .select(['r.id', 'r.scope', 'r.season_number', 'r.episode_number', 'r.rating', 'r.rated_at'])
    .where('r.user_id', '=', userId)
    .where('r.id', '>', afterId)
    .orderBy('r.id')
    .limit(limit)
    .execute();
}

/** Title states (favourite or status) by id. */
export function titleStateRows(em: EntityManager, userId: string, which: 'favourites' | 'statuses', afterId: string, limit: number) {
  let q = db(em)
    .selectFrom('user_title_state as s')
    .innerJoin('title as t', 't.id', 's.title_id')
    .select(TITLE_COLUMNS)
    .select(['s.id', 's.favourited_at', 's.show_status', 's.show_status_set_by'])
    .where('s.user_id', '=', userId)
    .where('s.id', '>', afterId);
  q = which === 'favourites' ? q.where('s.is_favourite', '=', true) : q.where('s.show_status', 'is not', null);
  return q.orderBy('s.id').limit(limit).execute();
}

/** The user's own lists by id: the watchlist, or every other list. */
export function ownedListRows(em: EntityManager, userId: string, watchlist: boolean, afterId: string, limit: number) {
  return db(em)
    .selectFrom('list as l')
    .select(['l.id', 'l.name', 'l.description', 'l.is_public', 'l.kind', 'l.dynamic_filters', 'l.external_source'])
    .where('l.owner_id', '=', userId)
    .where('l.is_watchlist', '=', watchlist)
    .where('l.id', '>', afterId)
    .orderBy('l.id')
    .limit(limit)
    .execute();
}

/** A list's items in the list's order, by (position, id); `after` is the last row's position and id. */
export function listItemRows(em: EntityManager, listId: string, after: [string, string] | null, limit: number) {
  let q = db(em)
    .selectFrom('list_item as i')
    .innerJoin('title as t', 't.id', 'i.title_id')
    .select(TITLE_COLUMNS)
    .select(['i.id', 'i.position', 'i.added_at'])
    .where('i.list_id', '=', listId);
  if (after) q = q.where((eb) => eb(eb.refTuple('i.position', 'i.id'), '>', eb.tuple(eb.cast<string>(eb.val(after[0]), 'bigint'), eb.cast<string>(eb.val(after[1]), 'bigint'))));
  return q.orderBy('i.position').orderBy('i.id').limit(limit).execute();
}

/** Collection items by id. */
export function collectionRows(em: EntityManager, userId: string, afterId: string, limit: number) {
  return db(em)
    .selectFrom('collection_item as c')
    .innerJoin('title as t', 't.id', 'c.title_id')
    .select(TITLE_COLUMNS)
    .select(['c.id', 'c.format', 'c.season', 'c.notes', 'c.added_at'])
    .where('c.user_id', '=', userId)
    .where('c.id', '>', afterId)
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/** Continue Watching entries listed now (not removed, not expired), by id. */
export function continueWatchingRows(em: EntityManager, userId: string, afterId: string, limit: number) {
  return db(em)
    .selectFrom('continue_watching as c')
    .innerJoin('title as t', 't.id', 'c.title_id')
    .select(TITLE_COLUMNS)
    .select(['c.id', 'c.season_number', 'c.episode_number', 'c.progress', 'c.position_seconds', 'c.duration_seconds', 'c.updated_at'])
    .where('c.user_id', '=', userId)
    .where('c.removed_at', 'is', null)
    .where('c.updated_at', '>', new Date(Date.now() - CW_TTL_DAYS * 24 * 60 * 60 * 1000))
    .where('c.id', '>', afterId)
    .orderBy('c.id')
    .limit(limit)
    .execute();
}
