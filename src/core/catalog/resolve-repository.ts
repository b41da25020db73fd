// The statements resolving many title or episode references at once (resolve.ts says the rules). The
// references travel as one JSON parameter, expanded on the server by json_to_recordset: one statement
// and the same text whatever the batch size.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { recordset } from '../db/recordset.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';

type TitleType = 'movie' | 'show';
type ByIdRef = { idx: number; type: TitleType; movie_db_id: number };
type AnyRef = { idx: number; type: TitleType; movie_db_id: number | null; tv_db_id: number | null; film_db_id: string | null; anime_db_id: number | null; title: string | null; year: number | null };
type EpisodeRef = { idx: number; title_id: string; season: number | null; episode: number | null; absolute: number | null };

const byIdRefs = (json: string) => recordset<ByIdRef, 'r'>(json, 'r', 'idx integer, type text, movie_db_id integer');
const anyRefs = (refs: AnyRef[]) =>
  recordset<AnyRef, 'r'>(refs, 'r', 'idx integer, type text, movie_db_id integer, tv_db_id integer, film_db_id text, anime_db_id integer, title text, year integer');
const episodeRefs = (refs: EpisodeRef[]) => recordset<EpisodeRef, 'r'>(refs, 'r', 'idx integer, title_id bigint, season integer, episode integer, absolute integer');

/** What each resolved ref answers (with its runtime: the movie's, else the show's episode runtime). */
const RESOLVED = ['r.idx', 't.id', 't.type', 't.movie_db_id', 't.is_anime', 't.name', 't.year', 't.poster_path', 't.tv_db_id', 't.film_db_id'] as const;

/**
 * The common case first: most clients send (type, movie_db_id), and a plain join resolves a batch of
 * them several times faster than the ranked lateral search, which then runs only for what is left.
 */
export function resolveByMovieDbIdQuery(k: Kysely<Tables>, json: string) {
  return k
    .selectFrom(byIdRefs(json))
    .innerJoin('title as t', (j) => j.onRef('t.type', '=', 'r.type').onRef('t.movie_db_id', '=', 'r.movie_db_id'))
    .select(RESOLVED)
    .select((eb) => eb.fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes').as('runtime_minutes'));
}

/** Compiled once (compiled-once.ts): every write that names a title by its movie database id runs it first. */
const byMovieDbIdOnce = compiledOnce(
  (json: string) => resolveByMovieDbIdQuery(offline, json),
  (json, value) => value(json),
);

export const resolveByMovieDbId = async (em: EntityManager, refs: ByIdRef[]) => (await db(em).executeQuery(byMovieDbIdOnce(JSON.stringify(refs)))).rows;

/**
 * Each ref's title by the first of movie_db_id, tv_db_id, film_db_id, anime_db_id, title + year, then the
 * normalised title + year (title_match_name: case, accents, punctuation, "&", a leading "The") that finds
 * one (of the ref's type; the most popular on a tie); refs that find none have no row. In ref order.
 */
export function resolveAny(em: EntityManager, refs: AnyRef[]) {
  return db(em)
    .selectFrom(anyRefs(refs))
    .innerJoinLateral(
      (eb) => {
        const branch = (rank: number) =>
          eb
            .selectFrom('title as x')
            .select([
              eb.lit<number>(rank).as('rank'),
              'x.id',
              'x.type',
              'x.movie_db_id',
              'x.is_anime',
              'x.name',
              'x.year',
              'x.runtime_minutes',
              'x.episode_run_time_minutes',
              'x.poster_path',
              'x.tv_db_id',
              'x.film_db_id',
              'x.popularity',
            ])
            .whereRef('x.type', '=', 'r.type');
        const candidates = branch(1)
          .where('r.movie_db_id', 'is not', null)
          .whereRef('x.movie_db_id', '=', 'r.movie_db_id')
          .unionAll(branch(2).where('r.tv_db_id', 'is not', null).whereRef('x.tv_db_id', '=', 'r.tv_db_id'))
          .unionAll(branch(3).where('r.film_db_id', 'is not', null).whereRef('x.film_db_id', '=', 'r.film_db_id'))
          .unionAll(branch(4).where('r.anime_db_id', 'is not', null).whereRef('x.anime_db_id', '=', 'r.anime_db_id'))
          .unionAll(
            branch(5)
              .where('r.title', 'is not', null)
              .where('x.search_name', '=', eb.fn<string>('lower', ['r.title']))
              .where((w) => w.or([w('r.year', 'is', null), w('x.year', '=', w.ref('r.year'))])),
          )
          // The same name written another way ("Crime & Punishment", "Amelie", "Silent Harbor" for "The
          // Silent Harbor"): after the exact name, so an exact match always wins.
          .unionAll(
            branch(6)
              .where('r.title', 'is not', null)
              .where('x.match_name', '=', eb.fn<string>('title_match_name', ['r.title']))
              .where((w) => w.or([w('r.year', 'is', null), w('x.year', '=', w.ref('r.year'))])),
          );
        return eb
          .selectFrom(candidates.as('c'))
          .selectAll('c')
          .orderBy('c.rank')
          .orderBy('c.popularity', 'desc')
          .orderBy('c.id')
          .limit(eb.lit(1))
          .as('t');
      },
      (j) => j.onTrue(),
    )
    .select(RESOLVED)
    .select((eb) => eb.fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes').as('runtime_minutes'))
    .orderBy('r.idx')
    .execute();
}

/**
 * Each ref's episode: by season and number, else by absolute number (the stored absolute_number, else
 * the position counting every regular season's episodes in order: specials, season 0, are not counted,
 * which is how anime sources number episodes); refs that match none have no row. In ref order.
 */
export function resolveEpisodeRefs(em: EntityManager, refs: EpisodeRef[]) {
  return db(em)
    .selectFrom(episodeRefs(refs))
    .innerJoinLateral(
      (eb) => {
        const columns = ['id', 'title_id', 'season_number', 'episode_number', 'absolute_number', 'name', 'air_date', 'runtime_minutes'] as const;
        const bySeason = eb
          .selectFrom('episode as x')
          .select([eb.lit<number>(1).as('rank'), ...columns.map((c) => `x.${c}` as const)])
          .where('r.season', 'is not', null)
          .whereRef('x.title_id', '=', 'r.title_id')
          .whereRef('x.season_number', '=', 'r.season')
          .whereRef('x.episode_number', '=', 'r.episode');
        const byAbsolute = eb
          .selectFrom('episode as x')
          .select([eb.lit<number>(2).as('rank'), ...columns.map((c) => `x.${c}` as const)])
          .where('r.absolute', 'is not', null)
          .whereRef('x.title_id', '=', 'r.title_id')
          .whereRef('x.absolute_number', '=', 'r.absolute');
        const positioned = eb
          .selectFrom('episode as x')
          .select((w) => [
            ...columns.map((c) => `x.${c}` as const),
            w.fn.agg<number>('row_number').over((o) => o.orderBy('x.season_number').orderBy('x.episode_number')).as('position'),
          ])
          .where('r.absolute', 'is not', null)
          .whereRef('x.title_id', '=', 'r.title_id')
          .where('x.season_number', '>', 0);
        const byPosition = eb
          .selectFrom(positioned.as('y'))
          .select([eb.lit<number>(3).as('rank'), ...columns.map((c) => `y.${c}` as const)])
          .whereRef('y.position', '=', 'r.absolute');
        return eb
          .selectFrom(bySeason.unionAll(byAbsolute).unionAll(byPosition).as('c'))
          .selectAll('c')
          .orderBy('c.rank')
          .limit(eb.lit(1))
          .as('e');
      },
      (j) => j.onTrue(),
    )
    .select(['r.idx', 'e.id', 'e.title_id', 'e.season_number', 'e.episode_number', 'e.absolute_number', 'e.name', 'e.runtime_minutes', 'e.air_date'])
    .orderBy('r.idx')
    .execute();
}
