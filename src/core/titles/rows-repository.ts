// Titles, seasons and episodes with every column a full presentation of them shows, read in batches for
// dialects that name them by row id or present a whole page at once (the Trakt-compatible facade): a
// page of titles by (type, movie_db_id) or by row id, a show's seasons with their row ids (and their
// episodes), episodes by show, season and number or by row id. Each is ONE statement for the whole
// batch, whatever its size.
//
// Season counts (episodes, aired) come from the title module's own season rows (seasonRows), so "aired"
// means here what it means on the platform API.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type ExpressionBuilder } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
import type { Tables } from '../schema/index.ts';
import { TITLE_DESCRIPTION } from './repository.ts';
import { seasonRows } from './seasons-repository.ts';
import { utcDay } from './user-state.ts';

type TitleKey = { type: 'movie' | 'show'; movieDbId: number };

type WithTitle = Tables & { t: Tables['title'] };
const eb0 = expressionBuilder<Tables, never>();

/** A show's aired regular episodes (seasons 1 and up), as the platform's season rows count them. */
const airedEpisodes = (eb: ExpressionBuilder<WithTitle, 't'>) =>
  eb
    .selectFrom(seasonRows(eb.ref('t.id'), utcDay(), null).as('x'))
    .select((s) => s.cast<number>(s.fn.coalesce(s.fn.sum<number>('x.aired_episodes'), s.lit(0)), 'integer').as('n'))
    .where('x.season_number', '>', 0);

/** Every column of a title's row, `title as t` (aired_episodes only with `counts`: it counts episodes). */
function titleColumns(eb: ExpressionBuilder<WithTitle, 't'>, counts: boolean) {
  return [
    ...TITLE_DESCRIPTION,
    't.original_name',
    't.tv_db_id',
    't.film_db_id',
    't.updated_at',
    (counts ? eb.case().when('t.type', '=', 'show').then(airedEpisodes(eb)).else(eb.lit(null)).end() : eb.lit(null)).$castTo<number | null>().as('aired_episodes'),
  ] as const;
}

/** Titles by (type, movie_db_id), in any order, with the trending roll-up's watchers (0 when not trending). */
export function titleRowsByKeys(em: EntityManager, keys: readonly TitleKey[], counts: boolean) {
  const refs = keys.map((k) => ({ type: k.type, movie_db_id: k.movieDbId }));
  return db(em)
    .selectFrom(recordset<{ type: 'movie' | 'show'; movie_db_id: number }, 'r'>(refs, 'r', 'type text, movie_db_id integer'))
    .innerJoin('title as t', (j) => j.onRef('t.type', '=', 'r.type').onRef('t.movie_db_id', '=', 'r.movie_db_id'))
    .leftJoin('title_trending as tt', 'tt.title_id', 't.id')
    .select((eb) => titleColumns(eb as unknown as ExpressionBuilder<WithTitle, 't'>, counts))
    .select((eb) => eb.fn.coalesce('tt.watchers', eb.lit(0)).as('watchers'))
    .execute();
}

/** Titles (of either type) by row id, in any order. */
export function titleRowsById(em: EntityManager, ids: readonly string[], counts: boolean) {
  return db(em)
    .selectFrom('title as t')
    .select((eb) => titleColumns(eb as unknown as ExpressionBuilder<WithTitle, 't'>, counts))
    .where('t.id', 'in', [...ids])
    .execute();
}

export type TitleRow = Awaited<ReturnType<typeof titleRowsById>>[number];

const episodeColumns = ['e.id', 'e.season_number', 'e.episode_number', 'e.absolute_number', 'e.name', 'e.overview', 'e.air_date', 'e.runtime_minutes'] as const;

/**
 * A show's seasons (or the one numbered `season`) with their row ids and counts, and, with `episodes`,
 * each season's episodes in order. Empty when the show has no such season.
 */
export function seasonRowsOfShow(em: EntityManager, titleId: string, q: { season?: number | undefined; episodes: boolean }) {
  return db(em)
    .selectFrom(seasonRows(eb0.val(titleId), utcDay(), null, q.season).as('x'))
    .innerJoin('season as s', (j) => j.on('s.title_id', '=', titleId).onRef('s.season_number', '=', 'x.season_number'))
    .select(['s.id', 'x.season_number', 'x.name', 'x.overview', 'x.air_date', 'x.episode_count', 'x.aired_episodes'])
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('episode as e')
          .select(episodeColumns)
          .where('e.title_id', '=', titleId)
          .whereRef('e.season_number', '=', 'x.season_number')
          // Without `episodes` the subquery reads no row.
          .where(eb.val(q.episodes), '=', true)
          .orderBy('e.episode_number'),
      ).as('episodes'),
    )
    .orderBy('x.season_number')
    .execute();
}

export type ShowSeasonRow = Awaited<ReturnType<typeof seasonRowsOfShow>>[number];
export type ShowEpisodeRow = ShowSeasonRow['episodes'][number];

/** An episode named by its show (movie_db_id), season and number. */
export type ShowEpisodeKey = { showMovieDbId: number; season: number; episode: number };

/** Episodes by show (movie_db_id), season and number, each with its show's columns (`idx`: the key's index). */
export function episodeRowsByKeys(em: EntityManager, keys: readonly ShowEpisodeKey[], counts: boolean) {
  const refs = keys.map((k, idx) => ({ idx, movie_db_id: k.showMovieDbId, season: k.season, episode: k.episode }));
  return db(em)
    .selectFrom(recordset<{ idx: number; movie_db_id: number; season: number; episode: number }, 'r'>(refs, 'r', 'idx integer, movie_db_id integer, season integer, episode integer'))
    .innerJoin('title as t', (j) => j.on('t.type', '=', 'show').onRef('t.movie_db_id', '=', 'r.movie_db_id'))
    .innerJoin('episode as e', (j) => j.onRef('e.title_id', '=', 't.id').onRef('e.season_number', '=', 'r.season').onRef('e.episode_number', '=', 'r.episode'))
    .select('r.idx')
    .select((eb) => titleColumns(eb as unknown as ExpressionBuilder<WithTitle, 't'>, counts))
    .select(flatEpisodeColumns)
    .execute();
}

/** An episode by row id, with its show's columns. */
export function episodeRowById(em: EntityManager, id: string, counts: boolean) {
  return db(em)
    .selectFrom('episode as e')
    .innerJoin('title as t', 't.id', 'e.title_id')
    .select((eb) => titleColumns(eb as unknown as ExpressionBuilder<WithTitle, 't'>, counts))
    .select(flatEpisodeColumns)
    .where('e.id', '=', id)
    .executeTakeFirst();
}

/** The episode's columns, named apart from the title's (`episode as e`). */
const flatEpisodeColumns = [
  'e.id as episode_id',
  'e.season_number',
  'e.episode_number',
  'e.absolute_number',
  'e.name as episode_name',
  'e.overview as episode_overview',
  'e.air_date',
  'e.runtime_minutes as episode_runtime_minutes',
] as const;

/** An episode row with its show's columns (episodeRowsByKeys, episodeRowById). */
type FlatEpisode = { episode_id: string | number; season_number: number; episode_number: number; absolute_number: number | null; episode_name: string; episode_overview: string; air_date: string | null; episode_runtime_minutes: number | null };

/** A flat row's episode in seasonRowsOfShow's episode shape. */
export function episodeOf(r: FlatEpisode): ShowEpisodeRow {
  return {
    id: r.episode_id as ShowEpisodeRow['id'],
    season_number: r.season_number,
    episode_number: r.episode_number,
    absolute_number: r.absolute_number,
    name: r.episode_name,
    overview: r.episode_overview,
    air_date: r.air_date,
    runtime_minutes: r.episode_runtime_minutes,
  };
}
