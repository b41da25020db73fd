// The catalog looked up by keys other than the ids clients send in bodies: the row id (the id other
// dialects give a title, e.g. the Trakt-compatible facade's `trakt` id) and the normalised name + year a
// slug is made of. Each one statement over an index (the primary key; title_match_name).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

const COLUMNS = ['t.id', 't.type', 't.movie_db_id', 't.is_anime', 't.name', 't.year', 't.poster_path', 't.tv_db_id', 't.film_db_id'] as const;

/** Titles by row id (of one type), in no particular order. */
export function titlesByRowIds(em: EntityManager, type: 'movie' | 'show', ids: readonly string[]) {
  return db(em)
    .selectFrom('title as t')
    .select(COLUMNS)
    .select((eb) => eb.fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes').as('runtime_minutes'))
    .where('t.type', '=', type)
    .where('t.id', 'in', [...ids])
    .execute();
}

/** Titles of a type and year whose normalised name (title_match_name) is that of `words`. */
export function titlesByMatchName(em: EntityManager, type: 'movie' | 'show', words: string, year: number | null) {
  let q = db(em)
    .selectFrom('title as t')
    .select(COLUMNS)
    .select((eb) => eb.fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes').as('runtime_minutes'))
    .where('t.type', '=', type)
    .where('t.match_name', '=', (eb) => eb.fn<string>('title_match_name', [eb.val(words)]));
  if (year !== null) q = q.where('t.year', '=', year);
  return q.orderBy('t.id').limit(50).execute();
}
