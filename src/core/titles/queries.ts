// SQL of the title module's reads, built from validated inputs with bound parameters. Each read is one
// statement (the catalog row and the user's state gathered by subqueries; the lists and collection
// modules provide theirs as SQL expressions), so a title detail costs one round trip. Kept apart from
// the services so the benchmark runs exactly these statements through a bare `pg` client.
//
// User state is left out of the statement text (not merely filtered) when the token may not see it, so
// a token without history:read or ratings:read never makes the database read that user's rows.
import { collectionItemsJson } from '../collection/for-title.ts';
import { sqlParams, type Sql } from '../db/sql.ts';
import { featuredListsJson, userListsJson } from '../lists/for-title.ts';
import type { TitleRatingScope } from './schemas.ts';

type P = (value: unknown) => string;

/**
 * The user whose state a read includes, per kind of state (null: not visible to the token). Lists and
 * collection are read only by the title detail.
 */
export type UserState = { historyOf: string | null; ratingsOf: string | null; listsOf?: string | null; collectionOf?: string | null };

/** Latest watches of a title the title detail lists. */
export const TITLE_HISTORY_LIMIT = 100;
export const RECOMMENDATIONS_LIMIT = 10;
/** Most popular titles sharing a genre, ranked then by how many genres they share. */
const RECOMMENDATION_CANDIDATES = 100;

const SHOW_COLUMNS = 't.id, t.movie_db_id, t.name, t.year, t.poster_path, t.is_anime';

/**
 * One row per season of the show `titleId` (an SQL expression): counts of episodes, aired episodes and,
 * with `historyOf`, distinct episodes the user watched. Episodes and watches are counted once per show
 * (grouped by season), not once per season.
 */
function seasonRows(p: P, titleId: string, today: string, historyOf: string | null, seasonNumber?: number): string {
  const watched = historyOf
    ? `left join (select h.season_number, count(distinct h.episode_id)::int as watched from watch_history h
         where h.user_id = ${p(historyOf)} and h.title_id = ${titleId} and h.episode_id is not null
         group by h.season_number) w on w.season_number = s.season_number`
    : '';
  return `select s.season_number, s.name, s.overview, to_char(s.air_date, 'YYYY-MM-DD') as air_date, s.poster_path,
      coalesce(e.episodes, 0) as episode_count, coalesce(e.aired, 0) as aired_episodes,
      ${historyOf ? 'coalesce(w.watched, 0)' : 'null::int'} as watched_episodes
    from season s
    left join (select x.season_number, count(*)::int as episodes, count(*) filter (where x.air_date <= ${p(today)}::date)::int as aired
      from episode x where x.title_id = ${titleId} group by x.season_number) e on e.season_number = s.season_number
    ${watched}
    where s.title_id = ${titleId}${seasonNumber === undefined ? '' : ` and s.season_number = ${p(seasonNumber)}`}`;
}

/** One row per episode of one season (or one episode), with the user's plays and latest watch. */
function episodeRows(p: P, titleId: string, today: string, historyOf: string | null, season: number, episode?: number): string {
  const watched = historyOf
    ? `left join (select h.episode_id, count(*)::int as plays, max(h.watched_at) as last_watched from watch_history h
         where h.user_id = ${p(historyOf)} and h.title_id = ${titleId} and h.episode_id is not null and h.season_number = ${p(season)}
         group by h.episode_id) w on w.episode_id = e.id`
    : '';
  return `select e.season_number, e.episode_number, e.absolute_number, e.name, e.overview,
      to_char(e.air_date, 'YYYY-MM-DD') as air_date, e.runtime_minutes, e.still_path,
      coalesce(e.air_date <= ${p(today)}::date, false) as aired,
      ${historyOf ? 'coalesce(w.plays, 0) as plays, w.last_watched' : 'null::int as plays, null::timestamptz as last_watched'}
    from episode e
    ${watched}
    where e.title_id = ${titleId} and e.season_number = ${p(season)}${episode === undefined ? '' : ` and e.episode_number = ${p(episode)}`}`;
}

const jsonRows = (rows: string, order: string) => `(select coalesce(json_agg(row_to_json(r) order by ${order}), '[]'::json) from (${rows}) r)`;

/** The user's rating of one target of the title `t`, or null. */
function ratingOf(p: P, userId: string, scope: 'season' | 'episode', season: number, episode: number | null): string {
  return `(select r.rating from user_rating r where r.user_id = ${p(userId)} and r.title_id = t.id and r.scope = ${p(scope)}
    and r.season_number = ${p(season)} and r.episode_number is not distinct from ${p(episode)}::int)`;
}

/**
 * The title's rating in the interaction for `scope`: `title` and `series` both mean the title as a whole
 * (the one stored under the asked scope first); `season` and `episode` give the mean of the user's
 * ratings of the title's seasons or episodes, to one decimal.
 */
function interactionRating(p: P, userId: string, scope: TitleRatingScope): string {
  if (scope === 'title' || scope === 'series') {
    return `(select r.rating::float8 from user_rating r where r.user_id = ${p(userId)} and r.title_id = t.id
      and r.scope in ('title', 'series') and r.season_number is null and r.episode_number is null
      order by (r.scope = ${p(scope)}) desc limit 1)`;
  }
  return `(select round(avg(r.rating), 1)::float8 from user_rating r where r.user_id = ${p(userId)} and r.title_id = t.id and r.scope = ${p(scope)})`;
}

export type TitleDetailQuery = {
  type: 'movie' | 'show';
  movieDbId: number;
  scope: TitleRatingScope;
  today: string;
  state: UserState;
  /** Featured lists containing the title (default true; false only for the benchmark's older baseline). */
  featured?: boolean;
};

/**
 * The user's watches of the title `t`. `offset 0` keeps the planner from reading the user's whole history
 * in time order looking for this title's entries (watch_history_user_time): it finds them by
 * (user_id, title_id) first (watch_history_user_item), then sorts the few it found.
 */
const titleWatches = (user: string) => `(select h.id, h.watched_at, h.season_number, h.episode_number from watch_history h
  where h.user_id = ${user} and h.title_id = t.id offset 0)`;

/**
 * The catalog title with season stats, the users' average rating, the featured lists containing it and,
 * where the token may see them, the user's interaction, latest watches, lists and collection items: one
 * statement, no row when there is no such title. Recommendations are read apart (recommendationsSql)
 * because they are the same for every user (the service caches them).
 */
export function titleDetailSql(q: TitleDetailQuery): Sql {
  const { params, p } = sqlParams();
  const { historyOf, ratingsOf } = q.state;
  const userColumns: string[] = [];
  let stateJoin = '';
  if (ratingsOf) {
    const user = p(ratingsOf);
    userColumns.push(
      `(select max(h.watched_at) from ${titleWatches(user)} h) as watched_at`,
      `${interactionRating(p, ratingsOf, q.scope)} as rating`,
      `coalesce(us.is_favourite, false) as is_favourite`,
      `us.show_status`,
    );
    stateJoin = `left join user_title_state us on us.user_id = ${user} and us.title_id = t.id`;
  }
  if (historyOf) {
    userColumns.push(`(select coalesce(json_agg(json_build_object('id', h.id, 'watched_at', h.watched_at, 'season', h.season_number,
        'episode', h.episode_number) order by h.watched_at desc, h.id desc), '[]'::json)
      from (select * from ${titleWatches(p(historyOf))} h order by h.watched_at desc, h.id desc limit ${TITLE_HISTORY_LIMIT}) h) as history`);
  }
  if (q.state.listsOf) userColumns.push(`${userListsJson(p(q.state.listsOf), 't.id')} as user_lists`);
  if (q.state.collectionOf) userColumns.push(`${collectionItemsJson(p(q.state.collectionOf), 't.id')} as collection_items`);
  if (q.featured ?? true) userColumns.push(`${featuredListsJson('t.id')} as featured_lists`);
  const seasonStats = q.type === 'show' ? jsonRows(seasonRows(p, 't.id', q.today, historyOf), 'r.season_number') : `'[]'::json`;
  // The users' rating of the title as a whole (title or series scope).
  const community = `from user_rating r where r.title_id = t.id and r.scope in ('title', 'series') and r.season_number is null and r.episode_number is null`;
  const text = `select t.id, t.type, t.movie_db_id, t.category, t.is_anime, t.name, t.tagline, t.year,
      to_char(t.release_date, 'YYYY-MM-DD') as release_date, t.overview, t.poster_path, t.backdrop_path, t.community_rating,
      t.vote_count, t.genres, t.original_language, t.status, t.age_rating, t.runtime_minutes, t.episode_run_time_minutes,
      t.seasons_count, t.episodes_count,
      ${seasonStats} as season_stats,
      c.average as community_average, c.count as community_count
      ${userColumns.map((col) => `, ${col}`).join('\n      ')}
    from title t
    cross join lateral (select round(avg(r.rating), 2)::float8 as average, count(*)::int as count ${community}) c
    ${stateJoin}
    where t.type = ${p(q.type)} and t.movie_db_id = ${p(q.movieDbId)}`;
  // One text per type, scope and visible state: a few dozen at most, so a named statement (db/prepared.ts).
  return { text, params, prepare: true };
}

/**
 * Titles like this one (no rows: no such title, or nothing shares a genre): of the same type and
 * anime-ness, the most popular ones sharing a genre, ranked by the number of genres shared, then
 * popularity. The same for every user, so the service caches the answer.
 */
export function recommendationsSql(q: { type: 'movie' | 'show'; movieDbId: number }): Sql {
  const { params, p } = sqlParams();
  const text = `select r.movie_db_id, r.type, r.name, r.year, r.poster_path, r.is_anime
    from title t
    cross join lateral (
      select c.*, (select count(*) from unnest(c.genres) g where g = any(t.genres)) as shared
      from (select x.id, x.movie_db_id, x.type, x.name, x.year, x.poster_path, x.is_anime, x.popularity, x.genres from title x
        where x.type = t.type and x.is_anime = t.is_anime and x.genres && t.genres and x.id <> t.id
        order by x.popularity desc, x.id limit ${RECOMMENDATION_CANDIDATES}) c
      order by shared desc, c.popularity desc, c.id limit ${RECOMMENDATIONS_LIMIT}
    ) r
    where t.type = ${p(q.type)} and t.movie_db_id = ${p(q.movieDbId)}
    order by r.shared desc, r.popularity desc, r.id`;
  return { text, params };
}

export type ShowQuery = { movieDbId: number; today: string; state: UserState };

/** A show and its seasons (no row: no such show). */
export function seasonListSql(q: ShowQuery): Sql {
  const { params, p } = sqlParams();
  const text = `select ${SHOW_COLUMNS}, ${jsonRows(seasonRows(p, 't.id', q.today, q.state.historyOf), 'r.season_number')} as seasons
    from title t where t.type = 'show' and t.movie_db_id = ${p(q.movieDbId)}`;
  return { text, params };
}

/** A show, one season (null when the show has none of that number), its episodes and the user's rating of it. */
export function seasonDetailSql(q: ShowQuery & { season: number }): Sql {
  const { params, p } = sqlParams();
  const rating = q.state.ratingsOf ? ratingOf(p, q.state.ratingsOf, 'season', q.season, null) : 'null::int';
  const text = `select ${SHOW_COLUMNS},
      (select row_to_json(r) from (${seasonRows(p, 't.id', q.today, q.state.historyOf, q.season)}) r) as season,
      ${jsonRows(episodeRows(p, 't.id', q.today, q.state.historyOf, q.season), 'r.episode_number')} as episodes,
      ${rating} as rating
    from title t where t.type = 'show' and t.movie_db_id = ${p(q.movieDbId)}`;
  return { text, params };
}

/** A show and one episode (null when it has no such episode) with the user's state and rating of it. */
export function episodeDetailSql(q: ShowQuery & { season: number; episode: number }): Sql {
  const { params, p } = sqlParams();
  const rating = q.state.ratingsOf ? ratingOf(p, q.state.ratingsOf, 'episode', q.season, q.episode) : 'null::int';
  const text = `select ${SHOW_COLUMNS},
      (select row_to_json(r) from (${episodeRows(p, 't.id', q.today, q.state.historyOf, q.season, q.episode)}) r) as episode,
      ${rating} as rating
    from title t where t.type = 'show' and t.movie_db_id = ${p(q.movieDbId)}`;
  return { text, params };
}

export type CalendarQuery = { userId: string; from: string; until: string; withWatched: boolean };

/**
 * Episodes airing in [from, until) of the shows the user follows: a favourite, or a show status other
 * than `dropped`, or an episode watched (unless the user dropped the show). Sorted by air date.
 */
export function calendarSql(q: CalendarQuery): Sql {
  const { params, p } = sqlParams();
  const user = p(q.userId);
  const text = `with followed as (
      select s.title_id from user_title_state s
      where s.user_id = ${user} and (s.is_favourite or s.show_status in ('watching', 'planned', 'paused', 'completed'))
      union
      select w.title_id from watch_history w
      where w.user_id = ${user} and w.episode_id is not null
        and not exists (select 1 from user_title_state d where d.user_id = ${user} and d.title_id = w.title_id and d.show_status = 'dropped')
    )
    select ${SHOW_COLUMNS}, e.season_number, e.episode_number, e.name as episode_name, to_char(e.air_date, 'YYYY-MM-DD') as air_date,
      e.runtime_minutes,
      ${q.withWatched ? `exists (select 1 from watch_history h where h.user_id = ${user} and h.title_id = e.title_id and h.episode_id = e.id)` : 'null::boolean'} as watched
    from followed f
    join title t on t.id = f.title_id and t.type = 'show'
    join episode e on e.title_id = t.id and e.air_date >= ${p(q.from)}::date and e.air_date < ${p(q.until)}::date
    order by e.air_date, t.name, t.movie_db_id, e.season_number, e.episode_number`;
  return { text, params };
}
