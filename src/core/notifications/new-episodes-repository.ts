// The new-episode job's query (new-episodes.ts): the (user, episode) notifications due.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** Statuses under which a user follows a show (besides the watchlist and favourites). */
const FOLLOWING = ['watching', 'planned', 'completed'] as const;
/** Statuses under which a user stepped away from a show. */
const STEPPED_AWAY = ['paused', 'dropped'] as const;

/**
 * Candidates: (user, episode) pairs due and not yet notified, for episodes aired in (`from`, `to`]
 * ('YYYY-MM-DD', UTC), in keyset order (user_id, episode_id) after `after`, at most `limit`.
 *
 * Starts from the episodes aired within the window (index episode_air_date), then their shows' followers
 * (indexes user_title_state_followers, list_item_title), with when each follow began; a show followed
 * several ways counts from the earliest.
 */
export function dueNewEpisodes(em: EntityManager, window: { from: string; to: string }, after: [string, string], limit: number) {
  return db(em)
    .with('aired', (qc) =>
      qc
        .selectFrom('episode as e')
        .select(['e.id', 'e.title_id', 'e.season_number', 'e.episode_number', 'e.name', 'e.air_date'])
        .where('e.air_date', '<=', window.to)
        .where('e.air_date', '>', window.from),
    )
    .with('follow', (qc) =>
      qc
        .selectFrom('user_title_state as s')
        .select((eb) => [
          's.user_id',
          's.title_id',
          eb
            .fn<Date | null>('least', [
              eb.case().when('s.show_status', 'in', FOLLOWING).then(eb.ref('s.show_status_at')).end(),
              eb.case().when(eb.ref('s.is_favourite')).then(eb.ref('s.favourited_at')).end(),
            ])
            .as('since'),
        ])
        .where('s.title_id', 'in', qc.selectFrom('aired').select('aired.title_id'))
        .where((eb) => eb.or([eb('s.show_status', 'in', FOLLOWING), eb.ref('s.is_favourite')]))
        .unionAll(
          qc
            .selectFrom('list_item as i')
            .innerJoin('list as l', (join) => join.onRef('l.id', '=', 'i.list_id').on((eb) => eb.ref('l.is_watchlist')))
            .select(['l.owner_id as user_id', 'i.title_id', 'i.added_at as since'])
            .where('i.title_id', 'in', qc.selectFrom('aired').select('aired.title_id')),
        ),
    )
    .with('followed', (qc) =>
      qc
        .selectFrom('follow')
        .select((eb) => ['follow.user_id', 'follow.title_id', eb.fn.min('follow.since').as('since')])
        .groupBy(['follow.user_id', 'follow.title_id']),
    )
    .selectFrom('aired as e')
    .innerJoin('title as t', (join) => join.onRef('t.id', '=', 'e.title_id').on('t.type', '=', 'show'))
    .innerJoin('followed as f', 'f.title_id', 'e.title_id')
    .select((eb) => [
      'f.user_id',
      eb.cast<string>('e.id', 'text').as('episode_id'),
      't.movie_db_id',
      't.name as show_name',
      'e.season_number',
      'e.episode_number',
      'e.name as episode_name',
      eb.fn<string>('to_char', [eb.ref('e.air_date'), eb.val('YYYY-MM-DD')]).as('aired_on'),
    ])
    .where((eb) => eb('e.air_date', '>=', eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), eb.ref('f.since')]), 'date')))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('user_title_state as s')
            .select(eb.lit(1).as('one'))
            .whereRef('s.user_id', '=', 'f.user_id')
            .whereRef('s.title_id', '=', 'f.title_id')
            .where('s.show_status', 'in', STEPPED_AWAY),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('watch_history as h')
            .select(eb.lit(1).as('one'))
            .whereRef('h.user_id', '=', 'f.user_id')
            .whereRef('h.title_id', '=', 'e.title_id')
            .whereRef('h.episode_id', '=', 'e.id'),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('notification as n')
            .select(eb.lit(1).as('one'))
            .whereRef('n.user_id', '=', 'f.user_id')
            .where('n.dedupe_key', '=', eb(eb.val('new_episode:'), '||', eb.ref('e.id'))),
        ),
      ),
    )
    .where((eb) => eb(eb.refTuple('f.user_id', 'e.id'), '>', eb.tuple(eb.cast<string>(eb.val(after[0]), 'uuid'), eb.cast<string>(eb.val(after[1]), 'bigint'))))
    .orderBy('f.user_id')
    .orderBy('e.id')
    .limit(limit)
    .execute();
}
