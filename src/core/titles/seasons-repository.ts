// The title module's season and episode reads: a show's seasons, one season with its episodes, one
// episode, each one statement. The season rows (seasonRows) are also part of the title detail's
// statement (repository.ts).
//
// User state is left out of the statement text (not merely filtered) when the token may not see it, so
// a token without history:read or ratings:read never makes the database read that user's rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Expression } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

/** The user whose watches a read includes (null: not visible to the token). */
type HistoryOf = string | null;

const eb = expressionBuilder<Tables, never>();

/**
 * One row per season of the show `titleId` (an expression: a column of the enclosing statement): counts
 * of episodes, aired episodes and, with `historyOf`, distinct episodes the user watched (absent without
 * it). Episodes and watches are counted once per show (grouped by season), not once per season.
 */
export function seasonRows(titleId: Expression<string>, today: string, historyOf: HistoryOf, seasonNumber?: number) {
  const episodes = eb
    .selectFrom('episode as x')
    .select((s) => [
      'x.season_number',
      s.cast<number>(s.fn.countAll(), 'integer').as('episodes'),
      s.cast<number>(s.fn.countAll().filterWhere('x.air_date', '<=', today), 'integer').as('aired'),
    ])
    .where('x.title_id', '=', titleId)
    .groupBy('x.season_number')
    .as('e');
  return eb
    .selectFrom('season as s')
    .leftJoin(episodes, 'e.season_number', 's.season_number')
    .select((s) => [
      's.season_number',
      's.name',
      's.overview',
      's.air_date',
      's.poster_path',
      s.fn.coalesce('e.episodes', s.lit(0)).as('episode_count'),
      s.fn.coalesce('e.aired', s.lit(0)).as('aired_episodes'),
    ])
    .$if(historyOf !== null, (q) =>
      q
        .leftJoin(
          eb
            .selectFrom('watch_history as h')
            .select((s) => ['h.season_number', s.cast<number>(s.fn.count('h.episode_id').distinct(), 'integer').as('watched')])
            .where('h.user_id', '=', historyOf!)
            .where('h.title_id', '=', titleId)
            .where('h.episode_id', 'is not', null)
            .groupBy('h.season_number')
            .as('w'),
          'w.season_number',
          's.season_number',
        )
        .select((s) => s.fn.coalesce('w.watched', s.lit(0)).as('watched_episodes')),
    )
    .where('s.title_id', '=', titleId)
    .$if(seasonNumber !== undefined, (q) => q.where('s.season_number', '=', seasonNumber!));
}

/** One row per episode of one season (or one episode), with the user's plays and latest watch (absent without `historyOf`). */
function episodeRows(titleId: Expression<string>, today: string, historyOf: HistoryOf, season: number, episode?: number) {
  return eb
    .selectFrom('episode as e')
    .select((s) => [
      'e.season_number',
      'e.episode_number',
      'e.absolute_number',
      'e.name',
      'e.overview',
      'e.air_date',
      'e.runtime_minutes',
      'e.still_path',
      s.fn.coalesce(s('e.air_date', '<=', today).$castTo<boolean>(), s.lit(false)).as('aired'),
    ])
    .$if(historyOf !== null, (q) =>
      q
        .leftJoin(
          eb
            .selectFrom('watch_history as h')
            .select((s) => ['h.episode_id', s.cast<number>(s.fn.countAll(), 'integer').as('plays'), s.fn.max('h.watched_at').as('last_watched')])
            .where('h.user_id', '=', historyOf!)
            .where('h.title_id', '=', titleId)
            .where('h.episode_id', 'is not', null)
            .where('h.season_number', '=', season)
            .groupBy('h.episode_id')
            .as('w'),
          'w.episode_id',
          'e.id',
        )
        .select((s) => [s.fn.coalesce('w.plays', s.lit(0)).as('plays'), 'w.last_watched']),
    )
    .where('e.title_id', '=', titleId)
    .where('e.season_number', '=', season)
    .$if(episode !== undefined, (q) => q.where('e.episode_number', '=', episode!));
}

/** The user's rating of a season (`episode` null) or an episode of the show `titleId`, or null. */
function ratingOf(userId: string, titleId: Expression<string>, scope: 'season' | 'episode', season: number, episode: number | null) {
  return eb
    .selectFrom('user_rating as r')
    .select('r.rating')
    .where('r.user_id', '=', userId)
    .where('r.title_id', '=', titleId)
    .where('r.scope', '=', scope)
    .where('r.season_number', '=', season)
    .where('r.episode_number', episode === null ? 'is' : '=', episode);
}

export type ShowQuery = { movieDbId: number; today: string; historyOf: HistoryOf; ratingsOf: string | null };

const showColumns = ['t.id', 't.movie_db_id', 't.name', 't.year', 't.poster_path', 't.is_anime'] as const;

const show = (em: EntityManager, movieDbId: number) => db(em).selectFrom('title as t').select(showColumns).where('t.type', '=', 'show').where('t.movie_db_id', '=', movieDbId);

/** A show and its seasons (undefined: no such show). */
export function findSeasonList(em: EntityManager, q: ShowQuery) {
  return show(em, q.movieDbId)
    .select((s) => jsonArrayFrom(seasonRows(s.ref('t.id'), q.today, q.historyOf).orderBy('s.season_number')).as('seasons'))
    .executeTakeFirst();
}

/** A show, one season (null when the show has none of that number), its episodes and the user's rating of it. */
export function findSeasonDetail(em: EntityManager, q: ShowQuery & { season: number }) {
  return show(em, q.movieDbId)
    .select((s) => [
      jsonObjectFrom(seasonRows(s.ref('t.id'), q.today, q.historyOf, q.season)).as('season_row'),
      jsonArrayFrom(episodeRows(s.ref('t.id'), q.today, q.historyOf, q.season).orderBy('e.episode_number')).as('episodes'),
    ])
    .$if(q.ratingsOf !== null, (b) => b.select((s) => ratingOf(q.ratingsOf!, s.ref('t.id'), 'season', q.season, null).as('rating')))
    .executeTakeFirst();
}

/** A show and one episode (null when it has no such episode) with the user's state and rating of it. */
export function findEpisodeDetail(em: EntityManager, q: ShowQuery & { season: number; episode: number }) {
  return show(em, q.movieDbId)
    .select((s) => jsonObjectFrom(episodeRows(s.ref('t.id'), q.today, q.historyOf, q.season, q.episode)).as('episode_row'))
    .$if(q.ratingsOf !== null, (b) => b.select((s) => ratingOf(q.ratingsOf!, s.ref('t.id'), 'episode', q.season, q.episode).as('rating')))
    .executeTakeFirst();
}

/** A show as the season, episode and calendar reads select it. */
export type ShowRow = Pick<NonNullable<Awaited<ReturnType<typeof findSeasonList>>>, (typeof showColumns)[number] extends `t.${infer C}` ? C : never>;
/** A season row (seasonRows) as its JSON array holds it. */
export type SeasonRow = NonNullable<Awaited<ReturnType<typeof findSeasonList>>>['seasons'][number];
/** An episode row (episodeRows) as its JSON holds it. */
export type EpisodeRow = NonNullable<Awaited<ReturnType<typeof findSeasonDetail>>>['episodes'][number];
