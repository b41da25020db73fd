// The importer's SQL. Each statement takes one parameter: a JSON array of row objects, expanded on the
// server by json_to_recordset (json, not jsonb: it is read once, so converting it to jsonb first is
// wasted work). One statement per batch whatever its size, no per-row placeholders, and the same text
// for every batch.
//
// On a title that already exists, anime-ness is sticky (is_anime = old OR new): a source that does not
// know about anime (the movie dataset, the synthetic shows) must not undo what the anime data said, and
// the result must not depend on which source ran first. External ids merge and ids a source does not
// know are kept, for the same reason.

const TITLE_RECORD = `r(type text, movie_db_id integer, is_anime boolean, name text, original_name text, tagline text,
  year integer, release_date date, overview text, poster_path text, backdrop_path text,
  popularity double precision, community_rating double precision, vote_count integer, genres text[],
  original_language text, status text, age_rating text, runtime_minutes integer,
  episode_run_time_minutes integer, seasons_count integer, episodes_count integer, poster_color text,
  poster_color_is_dark boolean, tv_db_id integer, film_db_id text, anime_db_id integer,
  external_ids jsonb, source text)`;

const TITLE_INSERT = `insert into title (type, movie_db_id, category, is_anime, name, original_name, tagline, year,
  release_date, overview, poster_path, backdrop_path, popularity, community_rating, vote_count, genres,
  original_language, status, age_rating, runtime_minutes, episode_run_time_minutes, seasons_count,
  episodes_count, poster_color, poster_color_is_dark, tv_db_id, film_db_id, anime_db_id, external_ids, source)
select r.type, r.movie_db_id, case when r.is_anime then 'anime' else r.type end, r.is_anime, r.name,
  r.original_name, r.tagline, r.year, r.release_date, r.overview, r.poster_path, r.backdrop_path,
  r.popularity, r.community_rating, r.vote_count, r.genres, r.original_language, r.status, r.age_rating,
  r.runtime_minutes, r.episode_run_time_minutes, r.seasons_count, r.episodes_count, r.poster_color,
  r.poster_color_is_dark, r.tv_db_id, r.film_db_id, r.anime_db_id, r.external_ids, r.source
from json_to_recordset($1::json) as ${TITLE_RECORD}`;

// (xmax = 0) is true for a row this statement inserted and false for one it updated: how we tell new
// titles from patched ones without a second query.
const RETURNING = `returning id, type, movie_db_id, (xmax = 0) as inserted`;

/** Inserts or overwrites titles (the source is authoritative for them). */
export const UPSERT_TITLES = `${TITLE_INSERT}
on conflict (type, movie_db_id) do update set
  is_anime = title.is_anime or excluded.is_anime,
  category = case when title.is_anime or excluded.is_anime then 'anime' else excluded.type end,
  name = excluded.name,
  original_name = excluded.original_name,
  tagline = excluded.tagline,
  year = excluded.year,
  release_date = excluded.release_date,
  overview = excluded.overview,
  poster_path = excluded.poster_path,
  backdrop_path = excluded.backdrop_path,
  popularity = excluded.popularity,
  community_rating = excluded.community_rating,
  vote_count = excluded.vote_count,
  genres = excluded.genres,
  original_language = excluded.original_language,
  status = excluded.status,
  age_rating = excluded.age_rating,
  runtime_minutes = excluded.runtime_minutes,
  episode_run_time_minutes = excluded.episode_run_time_minutes,
  seasons_count = coalesce(excluded.seasons_count, title.seasons_count),
  episodes_count = coalesce(excluded.episodes_count, title.episodes_count),
  poster_color = excluded.poster_color,
  poster_color_is_dark = excluded.poster_color_is_dark,
  tv_db_id = coalesce(excluded.tv_db_id, title.tv_db_id),
  film_db_id = coalesce(excluded.film_db_id, title.film_db_id),
  anime_db_id = coalesce(excluded.anime_db_id, title.anime_db_id),
  external_ids = title.external_ids || excluded.external_ids,
  source = excluded.source,
  updated_at = now()
${RETURNING}`;

/** Inserts missing titles whole; on existing ones applies only the patch fields (onExisting 'patch'). */
export const INSERT_OR_PATCH_TITLES = `${TITLE_INSERT}
on conflict (type, movie_db_id) do update set
  is_anime = title.is_anime or excluded.is_anime,
  category = case when title.is_anime or excluded.is_anime then 'anime' else excluded.type end,
  anime_db_id = coalesce(excluded.anime_db_id, title.anime_db_id),
  external_ids = title.external_ids || excluded.external_ids,
  updated_at = now()
${RETURNING}`;

/** ImportPatch: existing titles only; an explicit isAnime (true or false) is applied as given. */
export const PATCH_TITLES = `update title set
  is_anime = coalesce(p.is_anime, title.is_anime),
  category = case when coalesce(p.is_anime, title.is_anime) then 'anime' else title.type end,
  anime_db_id = coalesce(p.anime_db_id, title.anime_db_id),
  external_ids = title.external_ids || p.external_ids,
  updated_at = now()
from json_to_recordset($1::json) as p(type text, movie_db_id integer, is_anime boolean, anime_db_id integer, external_ids jsonb)
where title.type = p.type and title.movie_db_id = p.movie_db_id
returning title.id`;

export const UPSERT_SEASONS = `insert into season (title_id, season_number, name, overview, air_date, episode_count, poster_path)
select r.title_id, r.season_number, r.name, r.overview, r.air_date, r.episode_count, r.poster_path
from json_to_recordset($1::json) as r(title_id bigint, season_number integer, name text, overview text,
  air_date date, episode_count integer, poster_path text)
on conflict (title_id, season_number) do update set
  name = excluded.name,
  overview = excluded.overview,
  air_date = excluded.air_date,
  episode_count = excluded.episode_count,
  poster_path = excluded.poster_path`;

export const UPSERT_EPISODES = `insert into episode (title_id, season_number, episode_number, absolute_number, name, overview,
  air_date, runtime_minutes, still_path)
select r.title_id, r.season_number, r.episode_number, r.absolute_number, r.name, r.overview, r.air_date,
  r.runtime_minutes, r.still_path
from json_to_recordset($1::json) as r(title_id bigint, season_number integer, episode_number integer,
  absolute_number integer, name text, overview text, air_date date, runtime_minutes integer, still_path text)
on conflict (title_id, season_number, episode_number) do update set
  absolute_number = excluded.absolute_number,
  name = excluded.name,
  overview = excluded.overview,
  air_date = excluded.air_date,
  runtime_minutes = excluded.runtime_minutes,
  still_path = excluded.still_path`;
