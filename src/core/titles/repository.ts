// The title module's statements: the title detail and the calendar (seasons and episodes:
// seasons-repository.ts). Each read is one statement: the title detail gathers the catalog row, its
// precomputed recommendations and the user's state by subqueries (the lists and collection modules
// provide theirs as expressions), so it costs one round trip.
//
// User state is left out of the statement text (not merely filtered) when the token may not see it, so
// a token without history:read or ratings:read never makes the database read that user's rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Expression, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { collectionItemsOf } from '../collection/repository.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { prepared } from '../db/sql.ts';
import { featuredListsOf, userListsOf } from '../lists/for-title.ts';
import type { TitleRatingScope } from './schemas.ts';
import { seasonRows } from './seasons-repository.ts';

const eb = expressionBuilder<Tables, never>();

/**
 * The user whose state a read includes, per kind of state (null: not visible to the token). Lists and
 * collection are read only by the title detail.
 */
export type UserState = { historyOf: string | null; ratingsOf: string | null; listsOf?: string | null; collectionOf?: string | null };

/** Latest watches of a title the title detail lists. */
const TITLE_HISTORY_LIMIT = 100;

/**
 * The user's watches of the title `titleId`. `offset 0` keeps the planner from reading the user's whole
 * history in time order looking for this title's entries (watch_history_user_time): it finds them by
 * (user_id, title_id) first (watch_history_user_item), then sorts the few it found.
 */
const titleWatches = (userId: string, titleId: Expression<string>) =>
  eb
    .selectFrom('watch_history as h')
    .select(['h.id', 'h.watched_at', 'h.season_number', 'h.episode_number'])
    .where('h.user_id', '=', userId)
    .where('h.title_id', '=', titleId)
    .offset(eb.lit(0));

/**
 * The title's rating in the interaction for `scope`: `title` and `series` both mean the title as a whole
 * (the one stored under the asked scope first); `season` and `episode` give the mean of the user's
 * ratings of the title's seasons or episodes, to one decimal.
 */
function interactionRating(userId: string, titleId: Expression<string>, scope: TitleRatingScope) {
  const ratings = eb.selectFrom('user_rating as r').where('r.user_id', '=', userId).where('r.title_id', '=', titleId);
  if (scope === 'title' || scope === 'series') {
    return ratings
      .select((s) => s.cast<number>('r.rating', 'float8').as('rating'))
      .where('r.scope', 'in', ['title', 'series'])
      .where('r.season_number', 'is', null)
      .where('r.episode_number', 'is', null)
      .orderBy((s) => s('r.scope', '=', scope), 'desc')
      .limit(eb.lit(1));
  }
  return ratings.select((s) => s.cast<number | null>(s.fn('round', [s.fn.avg('r.rating'), s.lit(1)]), 'float8').as('rating')).where('r.scope', '=', scope);
}

/** The title's recommended titles, best first, as a JSON array (empty when it has none yet). */
const recommendedFor = (titleId: Expression<string>) =>
  jsonArrayFrom(
    eb
      .selectFrom('title_recommendation as r')
      .innerJoin('title as x', (j) => j.on((on) => on('x.id', '=', on.fn.any('r.recommended_ids'))))
      .select(['x.movie_db_id', 'x.type', 'x.name', 'x.year', 'x.poster_path', 'x.is_anime'])
      .where('r.title_id', '=', titleId)
      .orderBy((o) => o.fn('array_position', ['r.recommended_ids', 'x.id'])),
  );

/** The columns that describe a title (`title as t`): the title detail's and every full title row's (rows-repository.ts). */
export const TITLE_DESCRIPTION = [
  't.id',
  't.type',
  't.movie_db_id',
  't.is_anime',
  't.name',
  't.tagline',
  't.year',
  't.release_date',
  't.overview',
  't.poster_path',
  't.community_rating',
  't.vote_count',
  't.genres',
  't.original_language',
  't.status',
  't.age_rating',
  't.runtime_minutes',
  't.episode_run_time_minutes',
] as const;

export type TitleDetailQuery = {
  type: 'movie' | 'show';
  movieDbId: number;
  scope: TitleRatingScope;
  today: string;
  state: UserState;
};

/**
 * The catalog title with season stats (shows only: absent for a movie), the users' average rating, the
 * featured lists containing it, its recommendations (precomputed: catalog/recommendations.ts) and, where
 * the token may see them, the user's interaction, latest watches, lists and collection items (each
 * absent when not visible): one statement, no row when there is no such title. One text per type, scope
 * and visible state: a few dozen at most, so it runs as a named statement.
 */
export function titleDetailQuery(k: Kysely<Tables>, q: TitleDetailQuery) {
  const { historyOf, ratingsOf, listsOf, collectionOf } = q.state;
  return (
    k
      .selectFrom('title as t')
      // The users' rating of the title as a whole (title or series scope).
      .innerJoinLateral(
        (j) =>
          j
            .selectFrom('user_rating as r')
            .select((s) => [
              s.cast<number | null>(s.fn('round', [s.fn.avg('r.rating'), s.lit(2)]), 'float8').as('average'),
              s.cast<number>(s.fn.countAll(), 'integer').as('count'),
            ])
            .whereRef('r.title_id', '=', 't.id')
            .where('r.scope', 'in', ['title', 'series'])
            .where('r.season_number', 'is', null)
            .where('r.episode_number', 'is', null)
            .as('c'),
        (on) => on.onTrue(),
      )
      .select([
        ...TITLE_DESCRIPTION,
        't.category',
        't.backdrop_path',
        't.seasons_count',
        't.episodes_count',
        'c.average as community_average',
        'c.count as community_count',
      ])
      .select((s) => recommendedFor(s.ref('t.id')).as('recommendations'))
      .$if(q.type === 'show', (b) =>
        b.select((s) => jsonArrayFrom(seasonRows(s.ref('t.id'), q.today, historyOf).orderBy('s.season_number')).as('season_stats')),
      )
      .$if(ratingsOf !== null, (b) =>
        b
          .leftJoin('user_title_state as us', (j) => j.on('us.user_id', '=', ratingsOf!).onRef('us.title_id', '=', 't.id'))
          .select((s) => [
            s.selectFrom(titleWatches(ratingsOf!, s.ref('t.id')).as('h')).select((w) => w.fn.max('h.watched_at').as('m')).as('watched_at'),
            interactionRating(ratingsOf!, s.ref('t.id'), q.scope).as('rating'),
            s.fn.coalesce('us.is_favourite', s.lit(false)).as('is_favourite'),
            'us.show_status',
          ]),
      )
      .$if(historyOf !== null, (b) =>
        b.select((s) =>
          jsonArrayFrom(
            s
              .selectFrom(titleWatches(historyOf!, s.ref('t.id')).as('h'))
              .select(['h.id', 'h.watched_at', 'h.season_number as season', 'h.episode_number as episode'])
              .orderBy('h.watched_at', 'desc')
              .orderBy('h.id', 'desc')
              .limit(s.lit(TITLE_HISTORY_LIMIT)),
          ).as('history'),
        ),
      )
      .$if(!!listsOf, (b) => b.select((s) => userListsOf(listsOf!, s.ref('t.id')).as('user_lists')))
      .$if(!!collectionOf, (b) => b.select((s) => collectionItemsOf(collectionOf!, s.ref('t.id')).as('collection_items')))
      .select((s) => featuredListsOf(s.ref('t.id')).as('featured_lists'))
      .where('t.type', '=', q.type)
      .where('t.movie_db_id', '=', q.movieDbId)
  );
}

/** The title detail's statement, its text built once per shape (type, scope, which states). */
export const titleDetailStatement = compiledOnce(
  (q: TitleDetailQuery) => titleDetailQuery(offline, q),
  (q, value) => {
    const user = (id: string | null | undefined) => (id ? value(id) : id);
    const { historyOf, ratingsOf, listsOf, collectionOf } = q.state;
    return {
      ...q,
      movieDbId: value(q.movieDbId),
      today: value(q.today),
      state: { historyOf: user(historyOf) ?? null, ratingsOf: user(ratingsOf) ?? null, listsOf: user(listsOf), collectionOf: user(collectionOf) },
    };
  },
);

export async function findTitleDetail(em: EntityManager, q: TitleDetailQuery) {
  const [row] = await prepared(em, titleDetailStatement(q));
  return row;
}

export type CalendarQuery = { userId: string; from: string; until: string; withWatched: boolean; /** At most this many, the earliest. */ limit?: number };

/**
 * Episodes airing in [from, until) of the shows the user follows: a favourite, or a show status other
 * than `dropped`, or an episode watched (unless the user dropped the show). Sorted by air date.
 * `watched` only with `withWatched`. The calendar feed (core/calendar-feed) reads the same rows.
 */
export function calendarEntries(em: EntityManager, q: CalendarQuery) {
  return db(em)
    .with('followed', (w) =>
      w
        .selectFrom('user_title_state as s')
        .select('s.title_id')
        .where('s.user_id', '=', q.userId)
        .where((s) => s.or([s.ref('s.is_favourite'), s('s.show_status', 'in', ['watching', 'planned', 'paused', 'completed'])]))
        .union(
          // Shows with a watched episode, from the kept per-title figures (not a scan of the history).
          w
            .selectFrom('user_title_figures as w')
            .select('w.title_id')
            .where('w.user_id', '=', q.userId)
            .where('w.episodes', '>', 0)
            .where((s) =>
              s.not(
                s.exists(
                  s
                    .selectFrom('user_title_state as d')
                    .select(s.lit(1).as('one'))
                    .where('d.user_id', '=', q.userId)
                    .whereRef('d.title_id', '=', 'w.title_id')
                    .where('d.show_status', '=', 'dropped'),
                ),
              ),
            ),
        ),
    )
    .selectFrom('followed as f')
    .innerJoin('title as t', (j) => j.onRef('t.id', '=', 'f.title_id').on('t.type', '=', 'show'))
    .innerJoin('episode as e', (j) => j.onRef('e.title_id', '=', 't.id').on('e.air_date', '>=', q.from).on('e.air_date', '<', q.until))
    .select([
      't.id',
      't.movie_db_id',
      't.name',
      't.year',
      't.poster_path',
      't.is_anime',
      'e.season_number',
      'e.episode_number',
      'e.name as episode_name',
      'e.air_date',
      'e.runtime_minutes',
      'e.id as episode_id',
      'e.overview as episode_overview',
      't.updated_at',
    ])
    .$if(q.withWatched, (b) =>
      b.select((s) =>
        s
          .exists(
            s
              .selectFrom('watch_history as h')
              .select(s.lit(1).as('one'))
              .where('h.user_id', '=', q.userId)
              .whereRef('h.title_id', '=', 'e.title_id')
              .whereRef('h.episode_id', '=', 'e.id'),
          )
          .$castTo<boolean>()
          .as('watched'),
      ),
    )
    .orderBy('e.air_date')
    .orderBy('t.name')
    .orderBy('t.movie_db_id')
    .orderBy('e.season_number')
    .orderBy('e.episode_number')
    .$if(q.limit !== undefined, (b) => b.limit(q.limit!))
    .execute();
}
