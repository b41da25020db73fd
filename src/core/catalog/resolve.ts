// Resolving the ways clients name a title (bulk sync, playback) to catalog rows, many at once in one
// query. A title is (type, movie_db_id); other ids and title + year are fallbacks, tried in
// the order: movie_db_id, tv_db_id, film_db_id, anime_db_id, title + year. `type` is what the item names
// (an item with a season or an episode names a show); ids found under the other type never match.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';

export type TitleRef = {
  type: 'movie' | 'show';
  movieDbId?: number | undefined;
  tvDbId?: number | undefined;
  filmDbId?: string | undefined;
  animeDbId?: number | undefined;
  title?: string | undefined;
  year?: number | undefined;
};

export type ResolvedTitle = {
  /** Catalog row id (bigint as a string). */
  id: string;
  type: 'movie' | 'show';
  movieDbId: number;
  isAnime: boolean;
  name: string;
  year: number;
  runtimeMinutes: number | null;
  posterPath: string;
  tvDbId: number | null;
  filmDbId: string | null;
};

type Row = { idx: number; id: string | null; type: 'movie' | 'show'; movie_db_id: number; is_anime: boolean; name: string; year: number; runtime_minutes: number | null; poster_path: string; tv_db_id: number | null; film_db_id: string | null };

const RESOLVE_TITLES = `
select r.idx, t.id, t.type, t.movie_db_id, t.is_anime, t.name, t.year,
  coalesce(t.runtime_minutes, t.episode_run_time_minutes) as runtime_minutes, t.poster_path, t.tv_db_id, t.film_db_id
from json_to_recordset($1::json) as r(idx integer, type text, movie_db_id integer, tv_db_id integer,
  film_db_id text, anime_db_id integer, title text, year integer)
left join lateral (
  select c.* from (
    select 1 as rank, x.* from title x where r.movie_db_id is not null and x.type = r.type and x.movie_db_id = r.movie_db_id
    union all
    select 2, x.* from title x where r.tv_db_id is not null and x.type = r.type and x.tv_db_id = r.tv_db_id
    union all
    select 3, x.* from title x where r.film_db_id is not null and x.type = r.type and x.film_db_id = r.film_db_id
    union all
    select 4, x.* from title x where r.anime_db_id is not null and x.type = r.type and x.anime_db_id = r.anime_db_id
    union all
    select 5, x.* from title x where r.title is not null and x.type = r.type and x.search_name = lower(r.title)
      and (r.year is null or x.year = r.year)
  ) c order by c.rank, c.popularity desc, c.id limit 1
) t on true
order by r.idx`;

// The common case first: most clients send (type, movie_db_id), and a plain join resolves a batch of
// them several times faster than the ranked lateral search, which then runs only for what is left.
export const RESOLVE_BY_MOVIE_DB_ID = `
select r.idx, t.id, t.type, t.movie_db_id, t.is_anime, t.name, t.year,
  coalesce(t.runtime_minutes, t.episode_run_time_minutes) as runtime_minutes, t.poster_path, t.tv_db_id, t.film_db_id
from json_to_recordset($1::json) as r(idx integer, type text, movie_db_id integer)
join title t on t.type = r.type and t.movie_db_id = r.movie_db_id`;

const toResolved = (row: Row): ResolvedTitle => ({
  id: String(row.id),
  type: row.type,
  movieDbId: row.movie_db_id,
  isAnime: row.is_anime,
  name: row.name,
  year: row.year,
  runtimeMinutes: row.runtime_minutes,
  posterPath: row.poster_path,
  tvDbId: row.tv_db_id,
  filmDbId: row.film_db_id,
});

/** One answer per ref, in order: the title, or null where nothing matches. */
export async function resolveTitles(em: EntityManager, refs: TitleRef[]): Promise<(ResolvedTitle | null)[]> {
  if (refs.length === 0) return [];
  const answers: (ResolvedTitle | null)[] = refs.map(() => null);
  const byId = refs.flatMap((r, idx) => (r.movieDbId === undefined ? [] : [{ idx, type: r.type, movie_db_id: r.movieDbId }]));
  if (byId.length > 0) {
    for (const row of await query<Row>(em, { text: RESOLVE_BY_MOVIE_DB_ID, params: [JSON.stringify(byId)] })) answers[row.idx] = toResolved(row);
  }
  const rest = refs.flatMap((r, idx) =>
    answers[idx]
      ? []
      : [{ idx, type: r.type, movie_db_id: r.movieDbId ?? null, tv_db_id: r.tvDbId ?? null, film_db_id: r.filmDbId ?? null, anime_db_id: r.animeDbId ?? null, title: r.title?.trim() || null, year: r.year ?? null }],
  );
  if (rest.length > 0) {
    for (const row of await query<Row>(em, { text: RESOLVE_TITLES, params: [JSON.stringify(rest)] })) if (row.id !== null) answers[row.idx] = toResolved(row);
  }
  return answers;
}

export async function resolveTitle(em: EntityManager, ref: TitleRef): Promise<ResolvedTitle | null> {
  const [found] = await resolveTitles(em, [ref]);
  return found ?? null;
}

/** An episode of a resolved show, by season and number or by absolute number (anime numbering). */
export type EpisodeRef = { titleId: string; season?: number | undefined; episode?: number | undefined; absolute?: number | undefined };

export type ResolvedEpisode = { id: string; titleId: string; season: number; episode: number; absolute: number | null; name: string; runtimeMinutes: number | null; airDate: string | null };

type EpisodeRow = { idx: number; id: string | null; title_id: string; season_number: number; episode_number: number; absolute_number: number | null; name: string; runtime_minutes: number | null; air_date: string | null };

// Absolute numbers: the stored absolute_number, else the position counting every regular season's
// episodes in order (specials, season 0, are not counted), which is how anime sources number episodes.
const RESOLVE_EPISODES = `
select r.idx, e.id, e.title_id, e.season_number, e.episode_number, e.absolute_number, e.name, e.runtime_minutes,
  to_char(e.air_date, 'YYYY-MM-DD') as air_date
from json_to_recordset($1::json) as r(idx integer, title_id bigint, season integer, episode integer, absolute integer)
left join lateral (
  select c.* from (
    select 1 as rank, x.* from episode x where r.season is not null and x.title_id = r.title_id
      and x.season_number = r.season and x.episode_number = r.episode
    union all
    select 2, x.* from episode x where r.absolute is not null and x.title_id = r.title_id and x.absolute_number = r.absolute
    union all
    select 3, y.id, y.title_id, y.season_number, y.episode_number, y.absolute_number, y.name, y.overview, y.air_date,
      y.runtime_minutes, y.still_path
    from (
      select x.*, row_number() over (order by x.season_number, x.episode_number) as position
      from episode x where r.absolute is not null and x.title_id = r.title_id and x.season_number > 0
    ) y where y.position = r.absolute
  ) c order by c.rank limit 1
) e on true
order by r.idx`;

/** One answer per ref, in order: the episode, or null where the show has no such episode. */
export async function resolveEpisodes(em: EntityManager, refs: EpisodeRef[]): Promise<(ResolvedEpisode | null)[]> {
  if (refs.length === 0) return [];
  const input = refs.map((r, idx) => ({ idx, title_id: r.titleId, season: r.season ?? null, episode: r.episode ?? null, absolute: r.absolute ?? null }));
  const rows = await query<EpisodeRow>(em, { text: RESOLVE_EPISODES, params: [JSON.stringify(input)] });
  return rows.map((row) =>
    row.id === null
      ? null
      : { id: String(row.id), titleId: String(row.title_id), season: row.season_number, episode: row.episode_number, absolute: row.absolute_number, name: row.name, runtimeMinutes: row.runtime_minutes, airDate: row.air_date },
  );
}
