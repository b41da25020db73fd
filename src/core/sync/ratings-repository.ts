// The set-based write of bulk ratings (sync/ratings.ts): many ratings set or removed in one statement,
// each answered with what setRating / removeRating (library/ratings-write.ts) would answer for it.
import type { Kysely } from 'kysely';
import { jsonb } from '../db/json.ts';
import type { Tables } from '../schema/index.ts';

type Scope = Tables['user_rating']['scope'];

/**
 * One write: set `rating` on the target (rated_at `rated_at`, null for now), or remove the target's rating
 * when `rating` is null. `idx` names the write in the answer.
 */
export type RatingWrite = {
  idx: number;
  title_id: string;
  scope: Scope;
  season: number | null;
  episode: number | null;
  rating: number | null;
  rated_at: string | null;
};

/**
 * Applies the writes in one statement, one answer row per write in `idx` order. No two writes may name
 * the same target (the caller splits those into rounds, one statement each): every part of the
 * statement sees the ratings as they were before it, so each write is answered against that state.
 *
 * Per write: `prev_*` the target's rating before (null when none); `id` the rating written, removed or
 * left as it was (null: nothing to remove); `written` whether a rating was inserted or updated (false: the
 * same rating was there, nothing written), `removed` whether one was removed; `rated_at` the rating's
 * rated_at after a write. With the title's type, category and movie database id, and whether the user
 * has a favourite or status on the title (whose records carry the title-level rating).
 *
 * Like upsertRating, a set whose rating equals the one there writes nothing, whatever its rated_at.
 */
export function writeRatingsQuery(k: Kysely<Tables>, userId: string, writes: RatingWrite[]) {
  return (
    k
      .with('r', (k) =>
        k
          .selectFrom((eb) => eb.fn<{ value: RatingWrite }>('jsonb_array_elements', [jsonb(writes)]).as('j'))
          .select((eb) => {
            const field = (key: keyof RatingWrite) => eb.ref('j.value', '->>').key(key);
            return [
              eb.cast<number>(field('idx'), 'integer').as('idx'),
              eb.cast<string>(field('title_id'), 'bigint').as('title_id'),
              field('scope').$castTo<Scope>().as('scope'),
              eb.cast<number | null>(field('season'), 'integer').as('season'),
              eb.cast<number | null>(field('episode'), 'integer').as('episode'),
              eb.cast<number | null>(field('rating'), 'integer').as('rating'),
              eb.cast<Date | null>(field('rated_at'), 'timestamptz').as('rated_at'),
            ];
          }),
      )
      // One index probe per write (a lateral lookup), whatever the planner thinks of the user's ratings.
      .with('prev', (k) =>
        k
          .selectFrom('r')
          .innerJoinLateral(
            (eb) =>
              eb
                .selectFrom('user_rating as u')
                .select(['u.id', 'u.rating', 'u.rated_at'])
                .where('u.user_id', '=', userId)
                .whereRef('u.title_id', '=', 'r.title_id')
                .whereRef('u.scope', '=', 'r.scope')
                .where((eb) => eb('u.season_number', 'is not distinct from', eb.ref('r.season')))
                .where((eb) => eb('u.episode_number', 'is not distinct from', eb.ref('r.episode')))
                // At most one (the target is unique). The limit keeps the planner from flattening the lookup
                // into a join over all the user's ratings, and the order, the target index's own, has it take
                // that index (user, title, scope) rather than another on the user alone and filter.
                .orderBy('u.season_number')
                .orderBy('u.episode_number')
                .limit(1)
                .as('u'),
            (join) => join.onTrue(),
          )
          .select(['r.idx', 'u.id', 'u.rating', 'u.rated_at']),
      )
      .with('up', (k) =>
        k
          .insertInto('user_rating')
          .columns(['user_id', 'title_id', 'scope', 'season_number', 'episode_number', 'rating', 'rated_at', 'updated_at'])
          .expression(
            k
              .selectFrom('r')
              .select((eb) => [
                eb.cast(eb.val(userId), 'uuid').as('user_id'),
                'r.title_id',
                'r.scope',
                'r.season',
                'r.episode',
                'r.rating',
                eb.fn.coalesce('r.rated_at', eb.fn<Date>('now')).as('rated_at'),
                eb.fn<Date>('now').as('updated_at'),
              ])
              .where('r.rating', 'is not', null)
              .where((eb) => eb.not(eb.exists(eb.selectFrom('prev').select('prev.id').whereRef('prev.idx', '=', 'r.idx').whereRef('prev.rating', '=', 'r.rating'))))
              // New ratings take their ids in the writes' order, as one write after another would.
              .orderBy('r.idx'),
          )
          .onConflict((oc) =>
            oc.constraint('user_rating_target').doUpdateSet((eb) => ({
              rating: eb.ref('excluded.rating'),
              rated_at: eb.ref('excluded.rated_at'),
              updated_at: eb.fn<Date>('now'),
            })),
          )
          .returning(['id', 'title_id', 'scope', 'season_number', 'episode_number', 'rated_at']),
      )
      // The ratings the lookup found for a removal.
      .with('del', (k) =>
        k
          .deleteFrom('user_rating')
          // By id alone (the lookup found them among the user's ratings), as = any(array(...)): probes of the
          // primary key, which no misjudged estimate of the user's ratings turns into a scan of them.
          .where((eb) => eb('id', '=', eb.fn.any(eb.fn<string[]>('array', [eb.selectFrom('prev').innerJoin('r', 'r.idx', 'prev.idx').select('prev.id').where('r.rating', 'is', null)]))))
          .returning('id'),
      )
      .selectFrom('r')
      .innerJoin('title as t', 't.id', 'r.title_id')
      .leftJoin('prev', 'prev.idx', 'r.idx')
      // Each target once per statement: the written row is the one of the write's target.
      .leftJoin('up', (join) =>
        join
          .onRef('up.title_id', '=', 'r.title_id')
          .onRef('up.scope', '=', 'r.scope')
          .on((eb) => eb('up.season_number', 'is not distinct from', eb.ref('r.season')))
          .on((eb) => eb('up.episode_number', 'is not distinct from', eb.ref('r.episode'))),
      )
      .leftJoin('del', 'del.id', 'prev.id')
      .leftJoin('user_title_state as st', (join) => join.on('st.user_id', '=', userId).onRef('st.title_id', '=', 'r.title_id'))
      .select((eb) => [
        'r.idx',
        eb.fn.coalesce('up.id', 'del.id', 'prev.id').as('id'),
        eb('up.id', 'is not', null).as('written'),
        eb('del.id', 'is not', null).as('removed'),
        'prev.id as prev_id',
        'prev.rated_at as prev_rated_at',
        'up.rated_at',
        't.type',
        't.category',
        't.movie_db_id',
        eb('st.user_id', 'is not', null).as('has_state'),
      ])
      .orderBy('r.idx')
  );
}
