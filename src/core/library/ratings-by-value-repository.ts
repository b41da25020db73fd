// The user's ratings of some values (e.g. only the 9s and 10s), most recently changed first, for the
// Trakt-compatible facade's rating filter (the platform's ratings page has no such filter). The kept
// counts (user_library_count) are by scope, not by value, so this read and its count go over the
// user's ratings (of the scope, when given) through user_rating_user_scope_time / user_rating_user_time:
// bounded by the ratings the user holds, never by their history.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

type Scope = Tables['user_rating']['scope'];

function ofValues(em: EntityManager, userId: string, scope: Scope | undefined, values: readonly number[]) {
  let q = db(em)
    .selectFrom('user_rating as r')
    .where('r.user_id', '=', userId)
    .where((eb) => eb('r.rating', '=', eb.fn.any(eb.val([...values]))));
  if (scope) q = q.where('r.scope', '=', scope);
  return q;
}

/** The ratings (a window of them when `page` is given), newest change first. */
export function ratingsOfValues(em: EntityManager, userId: string, scope: Scope | undefined, values: readonly number[], page?: { offset: number; limit: number }) {
  let q = ofValues(em, userId, scope, values)
    .innerJoin('title as t', 't.id', 'r.title_id')
    .select(['r.id', 'r.title_id', 't.type', 't.movie_db_id', 'r.scope', 'r.season_number', 'r.episode_number', 'r.rating', 'r.rated_at'])
    .orderBy('r.updated_at', 'desc')
    .orderBy('r.id', 'desc');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

export async function countRatingsOfValues(em: EntityManager, userId: string, scope: Scope | undefined, values: readonly number[]): Promise<number> {
  const row = await ofValues(em, userId, scope, values)
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}
