// The writes of ratings, favourites and statuses (ratings-write.ts, title-state-write.ts), their lock,
// and what the ratings API looks up before writing.
//
// Each statement's text is built once per shape (compiled-once.ts): building and compiling them was a
// large part of a rating's or a favourite's CPU, and only their values change from call to call.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type CompiledQuery } from 'kysely';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import { lockTitleStates } from '../figures/lock.ts';
import type { Tables } from '../schema/index.ts';

type Scope = Tables['user_rating']['scope'];
type ShowStatus = NonNullable<Tables['user_title_state']['show_status']>;
export type RatingKey = { titleId: string; scope: Scope; season: number | null; episode: number | null };

/** Serialises the writes of one user's ratings, favourites, statuses and kept figures (one lock for all). */
export { lockTitleStates };

/** The statement's first row (undefined when none), run on the transaction's connection. */
async function first<O>(tx: EntityManager, q: CompiledQuery<O>): Promise<O | undefined> {
  return (await db(tx).executeQuery(q)).rows[0];
}

/** The rating's target as the statements take it: every field a value (a null season or episode too). */
const targetValues = (t: RatingKey, value: <T>(v: T) => T): RatingKey => ({
  titleId: value(t.titleId),
  scope: value(t.scope),
  season: value(t.season),
  episode: value(t.episode),
});

// ---- ratings

/**
 * Sets the rating of the target; `changed` is false when the same rating was already there (nothing is
 * written), `inserted` when the rating is new. With the rated title's type and movie database id.
 */
export function upsertRating(tx: EntityManager, userId: string, target: RatingKey, rating: number, ratedAt: Date | undefined) {
  return first(tx, upsertRatingOnce({ userId, target, rating, ratedAt }));
}

type RatingWrite = { userId: string; target: RatingKey; rating: number; ratedAt: Date | undefined };

/** One text with a given rated_at, one with now (compiled-once.ts). */
const upsertRatingOnce = compiledOnce(upsertRatingQuery, (p, value) => ({
  userId: value(p.userId),
  target: targetValues(p.target, value),
  rating: value(p.rating),
  ratedAt: p.ratedAt && value(p.ratedAt),
}));

function upsertRatingQuery({ userId, target, rating, ratedAt }: RatingWrite) {
  return offline
    .with('prev', (k) =>
      k
        .selectFrom('user_rating')
        .select(['id', 'rating', 'rated_at'])
        .where('user_id', '=', userId)
        .where('title_id', '=', target.titleId)
        .where('scope', '=', target.scope)
        .where('season_number', 'is not distinct from', target.season)
        .where('episode_number', 'is not distinct from', target.episode),
    )
    .with('up', (k) =>
      k
        .insertInto('user_rating')
        .columns(['user_id', 'title_id', 'scope', 'season_number', 'episode_number', 'rating', 'rated_at', 'updated_at'])
        .expression(
          k
            .selectNoFrom((eb) => [
              eb.val(userId).as('user_id'),
              eb.val(target.titleId).as('title_id'),
              eb.val(target.scope).as('scope'),
              eb.val(target.season).as('season_number'),
              eb.val(target.episode).as('episode_number'),
              eb.val(rating).as('rating'),
              (ratedAt ? eb.val(ratedAt) : eb.fn<Date>('now')).as('rated_at'),
              eb.fn<Date>('now').as('updated_at'),
            ])
            .where((eb) => eb.not(eb.exists(eb.selectFrom('prev').select('prev.id').where('prev.rating', '=', rating)))),
        )
        .onConflict((oc) =>
          oc.constraint('user_rating_target').doUpdateSet((eb) => ({
            rating: eb.ref('excluded.rating'),
            rated_at: eb.ref('excluded.rated_at'),
            updated_at: eb.fn<Date>('now'),
          })),
        )
        // raw: the system column xmax (0: the row was inserted, not updated on conflict) is no entity column.
        .returning((eb) => ['id', 'rated_at', sql<boolean>`xmax = 0`.as('inserted'), eb.lit(true).$castTo<boolean>().as('changed')]),
    )
    .selectFrom((eb) =>
      eb
        .selectFrom('up')
        .select(['up.id', 'up.rated_at', 'up.inserted', 'up.changed'])
        .unionAll(
          eb
            .selectFrom('user_rating as r')
            .select((eb) => ['r.id', 'r.rated_at', eb.lit(false).$castTo<boolean>().as('inserted'), eb.lit(false).$castTo<boolean>().as('changed')])
            .where('r.id', '=', eb.selectFrom('prev').select('prev.id'))
            .where((eb) => eb.not(eb.exists(eb.selectFrom('up').select('up.id')))),
        )
        .as('u'),
    )
    .innerJoin('title as t', (join) => join.on('t.id', '=', target.titleId))
    .select((eb) => [
      'u.id',
      'u.rated_at',
      eb.selectFrom('prev').select('prev.rated_at').as('prev_rated_at'),
      'u.inserted',
      'u.changed',
      't.movie_db_id',
      't.type',
      't.category',
      // Whether the title has a favourite or a status of the user, whose items show this rating too.
      eb.exists(eb.selectFrom('user_title_state as st').select(eb.lit(1).as('one')).where('st.user_id', '=', userId).where('st.title_id', '=', target.titleId)).as('has_state'),
    ]);
}

/** Removes the target's rating; the removed rating's id, with its title's type and movie database id. */
export function deleteRating(tx: EntityManager, userId: string, target: RatingKey) {
  return first(tx, deleteRatingOnce({ userId, target }));
}

/** One text (compiled-once.ts). */
const deleteRatingOnce = compiledOnce(deleteRatingQuery, (p, value) => ({ userId: value(p.userId), target: targetValues(p.target, value) }));

function deleteRatingQuery({ userId, target }: { userId: string; target: RatingKey }) {
  return offline
    .with('del', (k) =>
      k
        .deleteFrom('user_rating')
        .where('user_id', '=', userId)
        .where('title_id', '=', target.titleId)
        .where('scope', '=', target.scope)
        .where('season_number', 'is not distinct from', target.season)
        .where('episode_number', 'is not distinct from', target.episode)
        .returning(['id', 'title_id', 'rated_at']),
    )
    .selectFrom('del')
    .innerJoin('title as t', 't.id', 'del.title_id')
    .select(['del.id', 'del.rated_at', 't.type', 't.movie_db_id', 't.category']);
}

/** One of the user's ratings by its id. */
export function ratingById(tx: EntityManager, userId: string, id: number) {
  return first(tx, ratingByIdOnce({ userId, id: String(id) }));
}

/** One text (compiled-once.ts). */
const ratingByIdOnce = compiledOnce(
  ({ userId, id }: { userId: string; id: string }) =>
    offline.selectFrom('user_rating').select(['title_id', 'scope', 'season_number', 'episode_number']).where('id', '=', id).where('user_id', '=', userId),
  (p, value) => ({ userId: value(p.userId), id: value(p.id) }),
);

/** Whether the show has the season (a season row, or an episode in it). */
export async function seasonExists(em: EntityManager, titleId: string, season: number): Promise<boolean> {
  return (await first(em, seasonExistsOnce({ titleId, season }))) !== undefined;
}

/** One text (compiled-once.ts). */
const seasonExistsOnce = compiledOnce(
  ({ titleId, season }: { titleId: string; season: number }) =>
    offline
      .selectFrom('season')
      .select((eb) => eb.lit(1).as('found'))
      .where('title_id', '=', titleId)
      .where('season_number', '=', season)
      .unionAll(offline.selectFrom('episode').select((eb) => eb.lit(1).as('found')).where('title_id', '=', titleId).where('season_number', '=', season))
      .limit(1),
  (p, value) => ({ titleId: value(p.titleId), season: value(p.season) }),
);

// ---- favourites and statuses

// Each write that changes a favourite or a status answers the title's category and type, read by the
// same statement: the lists' counts (figures/library-counts.ts) are kept by them.

/** A user's title state: the key of every statement below. */
type TitleStateKey = { userId: string; titleId: string };
const titleStateValues = <K extends TitleStateKey>(p: K, value: <T>(v: T) => T): K => ({ ...p, userId: value(p.userId), titleId: value(p.titleId) });

/** Marks a favourite (at `at`, default now); the title's category and type, undefined when it was one already. */
export function markFavourite(tx: EntityManager, userId: string, titleId: string, at?: Date) {
  return first(tx, markFavouriteOnce({ userId, titleId, at }));
}

/** One text with a given time, one with now (compiled-once.ts). */
const markFavouriteOnce = compiledOnce(markFavouriteQuery, (p, value) => ({ userId: value(p.userId), titleId: value(p.titleId), at: p.at && value(p.at) }));

function markFavouriteQuery({ userId, titleId, at }: { userId: string; titleId: string; at: Date | undefined }) {
  return offline
    .with('changed', (k) =>
      k
        .insertInto('user_title_state')
        .values((eb) => ({ user_id: userId, title_id: titleId, is_favourite: true, favourited_at: at ?? eb.fn<Date>('now') }))
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'title_id'])
            .doUpdateSet((eb) => ({ is_favourite: true, favourited_at: eb.ref('excluded.favourited_at'), updated_at: eb.fn<Date>('now') }))
            .where((eb) => eb.not(eb.ref('user_title_state.is_favourite'))),
        )
        .returning('title_id'),
    )
    .selectFrom('changed')
    .innerJoin('title as t', 't.id', 'changed.title_id')
    .select(['t.category', 't.type']);
}

/** Unmarks a favourite; the title's category and type, undefined when it was not one. */
export function unmarkFavourite(tx: EntityManager, userId: string, titleId: string) {
  return first(tx, unmarkFavouriteOnce({ userId, titleId }));
}

/** One text (compiled-once.ts). */
const unmarkFavouriteOnce = compiledOnce(unmarkFavouriteQuery, titleStateValues);

function unmarkFavouriteQuery({ userId, titleId }: TitleStateKey) {
  return offline
    .with('changed', (k) =>
      k
        .updateTable('user_title_state')
        .set((eb) => ({ is_favourite: false, favourited_at: null, updated_at: eb.fn<Date>('now') }))
        .where('user_id', '=', userId)
        .where('title_id', '=', titleId)
        .where((eb) => eb.ref('is_favourite'))
        .returning('title_id'),
    )
    .selectFrom('changed')
    .innerJoin('title as t', 't.id', 'changed.title_id')
    .select(['t.category', 't.type']);
}

/** Removes the title's state row when it holds neither a favourite nor a status. */
export async function dropEmptyState(tx: EntityManager, userId: string, titleId: string): Promise<void> {
  await db(tx).executeQuery(dropEmptyStateOnce({ userId, titleId }));
}

/** One text (compiled-once.ts). */
const dropEmptyStateOnce = compiledOnce(
  ({ userId, titleId }: TitleStateKey) =>
    offline
      .deleteFrom('user_title_state')
      .where('user_id', '=', userId)
      .where('title_id', '=', titleId)
      .where((eb) => eb.not(eb.ref('is_favourite')))
      .where('show_status', 'is', null),
  titleStateValues,
);

/** The title's status, its row locked for the rest of the transaction (`for update`); undefined when none. */
export function lockTitleStatus(tx: EntityManager, userId: string, titleId: string) {
  return first(tx, lockTitleStatusOnce({ userId, titleId }));
}

/** One text (compiled-once.ts). */
const lockTitleStatusOnce = compiledOnce(
  ({ userId, titleId }: TitleStateKey) =>
    offline
      .selectFrom('user_title_state')
      .select(['show_status', 'show_status_set_by', 'show_status_at'])
      .where('user_id', '=', userId)
      .where('title_id', '=', titleId)
      .forUpdate(),
  titleStateValues,
);

/** Clears the title's status; the title's category and type, undefined when it has no state row. */
export function clearShowStatus(tx: EntityManager, userId: string, titleId: string) {
  return first(tx, clearShowStatusOnce({ userId, titleId }));
}

/** One text (compiled-once.ts). */
const clearShowStatusOnce = compiledOnce(clearShowStatusQuery, titleStateValues);

function clearShowStatusQuery({ userId, titleId }: TitleStateKey) {
  return offline
    .with('changed', (k) =>
      k
        .updateTable('user_title_state')
        .set((eb) => ({ show_status: null, show_status_set_by: null, show_status_at: null, updated_at: eb.fn<Date>('now') }))
        .where('user_id', '=', userId)
        .where('title_id', '=', titleId)
        .returning('title_id'),
    )
    .selectFrom('changed')
    .innerJoin('title as t', 't.id', 'changed.title_id')
    .select(['t.category', 't.type']);
}

export async function setShowStatusSetBy(tx: EntityManager, userId: string, titleId: string, setBy: 'user' | 'auto'): Promise<void> {
  await db(tx).executeQuery(setShowStatusSetByOnce({ userId, titleId, setBy }));
}

/** One text (compiled-once.ts). */
const setShowStatusSetByOnce = compiledOnce(
  ({ userId, titleId, setBy }: TitleStateKey & { setBy: 'user' | 'auto' }) =>
    offline.updateTable('user_title_state').set({ show_status_set_by: setBy }).where('user_id', '=', userId).where('title_id', '=', titleId),
  (p, value) => ({ ...titleStateValues(p, value), setBy: value(p.setBy) }),
);

/** Sets the title's status; the title's category and type. */
export async function storeShowStatus(tx: EntityManager, userId: string, titleId: string, status: ShowStatus, setBy: 'user' | 'auto') {
  const input = { userId, titleId, status, setBy };
  const row = await first(tx, storeShowStatusOnce(input));
  // The upsert always answers its row (the title exists, by its key); none is a fault, as in playback's upsertEntry.
  if (!row) throw new Error('storeShowStatus: the upsert returned no row');
  return row;
}

type StatusWrite = TitleStateKey & { status: ShowStatus; setBy: 'user' | 'auto' };

/** One text (compiled-once.ts). */
const storeShowStatusOnce = compiledOnce(storeShowStatusQuery, (p, value) => ({ ...titleStateValues(p, value), status: value(p.status), setBy: value(p.setBy) }));

function storeShowStatusQuery({ userId, titleId, status, setBy }: StatusWrite) {
  return offline
    .with('changed', (k) =>
      k
        .insertInto('user_title_state')
        .values((eb) => ({ user_id: userId, title_id: titleId, show_status: status, show_status_set_by: setBy, show_status_at: eb.fn<Date>('now') }))
        .onConflict((oc) =>
          oc.columns(['user_id', 'title_id']).doUpdateSet((eb) => ({
            show_status: eb.ref('excluded.show_status'),
            show_status_set_by: eb.ref('excluded.show_status_set_by'),
            show_status_at: eb.fn<Date>('now'),
            updated_at: eb.fn<Date>('now'),
          })),
        )
        .returning('title_id'),
    )
    .selectFrom('changed')
    .innerJoin('title as t', 't.id', 'changed.title_id')
    .select(['t.category', 't.type']);
}
