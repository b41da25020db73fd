// The importer's statements. Each takes its rows as one parameter (db/recordset.ts): one statement per
// batch whatever its size, and the same text for every batch. All run on the batch's transaction (`tx`).
//
// On a title that already exists, anime-ness is sticky (is_anime = old OR new): a source that does not
// know about anime (the movie dataset, the synthetic shows) must not undo what the anime data said, and
// the result must not depend on which source ran first. External ids merge and ids a source does not
// know are kept, for the same reason.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder, type OnConflictTables, type OnConflictUpdateDatabase } from 'kysely';
import { db } from '../../db/query-builder.ts';
import { refreshCompletionWindows } from '../../figures/titles-repository.ts';
import type { Tables } from '../../schema/index.ts';
import { recordset } from '../../db/recordset.ts';
import type { EpisodeRow, PatchRow, SeasonRow, TitleRow } from './normalize.ts';

const titleRecords = (rows: TitleRow[]) =>
  recordset<TitleRow, 'r'>(rows, 'r', `type text, movie_db_id integer, is_anime boolean, name text,
    original_name text, tagline text, year integer, release_date date, overview text, poster_path text, backdrop_path text,
    popularity double precision, community_rating double precision, vote_count integer, genres text[], original_language text,
    status text, age_rating text, runtime_minutes integer, episode_run_time_minutes integer, seasons_count integer,
    episodes_count integer, poster_color text, poster_color_is_dark boolean, tv_db_id integer, film_db_id text,
    anime_db_id integer, external_ids jsonb, source text`);
const patchRecords = (rows: PatchRow[]) =>
  recordset<PatchRow, 'p'>(rows, 'p', 'type text, movie_db_id integer, is_anime boolean, anime_db_id integer, external_ids jsonb');
type ChildRef = { title_id: number };
const seasonRecords = (rows: Array<SeasonRow & ChildRef>) =>
  recordset<SeasonRow & ChildRef, 'r'>(rows, 'r', 'title_id bigint, season_number integer, name text, overview text, air_date date, episode_count integer, poster_path text');
const episodeRecords = (rows: Array<EpisodeRow & ChildRef>) =>
  recordset<EpisodeRow & ChildRef, 'r'>(
    rows,
    'r',
    'title_id bigint, season_number integer, episode_number integer, absolute_number integer, name text, overview text, air_date date, runtime_minutes integer, still_path text',
  );

/** The title columns a record gives as they are (all but category, which insertTitles derives). */
const RECORD_COLUMNS = [
  'is_anime', 'name', 'original_name', 'tagline', 'year', 'release_date', 'overview', 'poster_path', 'backdrop_path',
  'popularity', 'community_rating', 'vote_count', 'genres', 'original_language', 'status', 'age_rating', 'runtime_minutes',
  'episode_run_time_minutes', 'seasons_count', 'episodes_count', 'poster_color', 'poster_color_is_dark', 'tv_db_id',
  'film_db_id', 'anime_db_id', 'external_ids', 'source',
] as const;

type Excluded = ExpressionBuilder<OnConflictUpdateDatabase<Tables, 'title'>, OnConflictTables<'title'>>;

/** The title rows as inserted: category from the type and anime-ness. */
function insertTitles(tx: EntityManager, rows: TitleRow[]) {
  return db(tx)
    .insertInto('title')
    .columns(['type', 'movie_db_id', 'category', ...RECORD_COLUMNS])
    .expression((eb) =>
      eb
        .selectFrom(titleRecords(rows))
        .select((s) => [
          'r.type',
          'r.movie_db_id',
          s.case().when(s.ref('r.is_anime')).then(s.val('anime')).else(s.ref('r.type')).end().as('category'),
          ...RECORD_COLUMNS.map((c) => `r.${c}` as const),
        ]),
    );
}

/** Anime-ness, category, anime id and external ids as an existing title takes them from a new row. */
const mergedIdentity = (eb: Excluded) => {
  const isAnime = eb.or([eb.ref('title.is_anime'), eb.ref('excluded.is_anime')]).$castTo<boolean>();
  return {
    is_anime: isAnime,
    category: eb.case().when(isAnime).then(eb.val('anime' as const)).else(eb.ref('excluded.type')).end(),
    anime_db_id: eb.fn.coalesce('excluded.anime_db_id', 'title.anime_db_id'),
    external_ids: eb(eb.ref('title.external_ids'), '||', eb.ref('excluded.external_ids')),
    updated_at: eb.fn<Date>('now'),
  };
};

// raw: xmax is a system column (0 on a row this statement inserted, not on one it updated): how new titles
// are told from updated ones without a second query
const inserted = sql<boolean>`xmax = 0`.as('inserted');

/** Inserts or overwrites titles (the source is authoritative for them); `inserted`: new rows. */
export function upsertTitles(tx: EntityManager, rows: TitleRow[]) {
  return insertTitles(tx, rows)
    .onConflict((oc) =>
      oc.columns(['type', 'movie_db_id']).doUpdateSet((eb) => ({
        ...mergedIdentity(eb),
        name: eb.ref('excluded.name'),
        original_name: eb.ref('excluded.original_name'),
        tagline: eb.ref('excluded.tagline'),
        year: eb.ref('excluded.year'),
        release_date: eb.ref('excluded.release_date'),
        overview: eb.ref('excluded.overview'),
        poster_path: eb.ref('excluded.poster_path'),
        backdrop_path: eb.ref('excluded.backdrop_path'),
        popularity: eb.ref('excluded.popularity'),
        community_rating: eb.ref('excluded.community_rating'),
        vote_count: eb.ref('excluded.vote_count'),
        genres: eb.ref('excluded.genres'),
        original_language: eb.ref('excluded.original_language'),
        status: eb.ref('excluded.status'),
        age_rating: eb.ref('excluded.age_rating'),
        runtime_minutes: eb.ref('excluded.runtime_minutes'),
        episode_run_time_minutes: eb.ref('excluded.episode_run_time_minutes'),
        seasons_count: eb.fn.coalesce('excluded.seasons_count', 'title.seasons_count'),
        episodes_count: eb.fn.coalesce('excluded.episodes_count', 'title.episodes_count'),
        poster_color: eb.ref('excluded.poster_color'),
        poster_color_is_dark: eb.ref('excluded.poster_color_is_dark'),
        tv_db_id: eb.fn.coalesce('excluded.tv_db_id', 'title.tv_db_id'),
        film_db_id: eb.fn.coalesce('excluded.film_db_id', 'title.film_db_id'),
        source: eb.ref('excluded.source'),
      })),
    )
    .returning(['id', 'type', 'movie_db_id', inserted])
    .execute();
}

/** Inserts missing titles whole; on existing ones applies only the patch fields (onExisting 'patch'). */
export function insertOrPatchTitles(tx: EntityManager, rows: TitleRow[]) {
  return insertTitles(tx, rows)
    .onConflict((oc) => oc.columns(['type', 'movie_db_id']).doUpdateSet(mergedIdentity))
    .returning(['id', 'type', 'movie_db_id', inserted])
    .execute();
}

/** ImportPatch: existing titles only; an explicit isAnime (true or false) is applied as given. Returns the patched ids. */
export function patchTitles(tx: EntityManager, rows: PatchRow[]) {
  return db(tx)
    .updateTable('title')
    .from(patchRecords(rows))
    .set((eb) => {
      const isAnime = eb.fn.coalesce('p.is_anime', 'title.is_anime');
      return {
        is_anime: isAnime,
        category: eb.case().when(isAnime).then(eb.val('anime' as const)).else(eb.ref('title.type')).end(),
        anime_db_id: eb.fn.coalesce('p.anime_db_id', 'title.anime_db_id'),
        external_ids: eb(eb.ref('title.external_ids'), '||', eb.ref('p.external_ids')),
        updated_at: eb.fn<Date>('now'),
      };
    })
    .whereRef('title.type', '=', 'p.type')
    .whereRef('title.movie_db_id', '=', 'p.movie_db_id')
    .returning('title.id')
    .execute();
}

export async function upsertSeasons(tx: EntityManager, rows: Array<SeasonRow & ChildRef>): Promise<void> {
  await db(tx)
    .insertInto('season')
    .columns(['title_id', 'season_number', 'name', 'overview', 'air_date', 'episode_count', 'poster_path'])
    .expression((eb) =>
      eb.selectFrom(seasonRecords(rows)).select(['r.title_id', 'r.season_number', 'r.name', 'r.overview', 'r.air_date', 'r.episode_count', 'r.poster_path']),
    )
    .onConflict((oc) =>
      oc.columns(['title_id', 'season_number']).doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        overview: eb.ref('excluded.overview'),
        air_date: eb.ref('excluded.air_date'),
        episode_count: eb.ref('excluded.episode_count'),
        poster_path: eb.ref('excluded.poster_path'),
      })),
    )
    .execute();
}

export async function upsertEpisodes(tx: EntityManager, rows: Array<EpisodeRow & ChildRef>): Promise<void> {
  await db(tx)
    .insertInto('episode')
    .columns(['title_id', 'season_number', 'episode_number', 'absolute_number', 'name', 'overview', 'air_date', 'runtime_minutes', 'still_path'])
    .expression((eb) =>
      eb
        .selectFrom(episodeRecords(rows))
        .select(['r.title_id', 'r.season_number', 'r.episode_number', 'r.absolute_number', 'r.name', 'r.overview', 'r.air_date', 'r.runtime_minutes', 'r.still_path']),
    )
    .onConflict((oc) =>
      oc.columns(['title_id', 'season_number', 'episode_number']).doUpdateSet((eb) => ({
        absolute_number: eb.ref('excluded.absolute_number'),
        name: eb.ref('excluded.name'),
        overview: eb.ref('excluded.overview'),
        air_date: eb.ref('excluded.air_date'),
        runtime_minutes: eb.ref('excluded.runtime_minutes'),
        still_path: eb.ref('excluded.still_path'),
      })),
    )
    .execute();
  // New episodes and moved air dates change when a show counts as completed for those who watch it.
  await refreshCompletionWindows(tx, [...new Set(rows.map((r) => String(r.title_id)))]);
}

/**
 * Vacuums and analyses the catalog tables: bulk inserts leave the GIN indexes' pending lists long and
 * the planner without statistics. Outside any transaction.
 */
export async function vacuumCatalog(em: EntityManager): Promise<void> {
  // raw: VACUUM is a maintenance command, not a query the builder writes
  await sql`vacuum analyze title, season, episode, title_recommendation`.execute(db(em));
}
