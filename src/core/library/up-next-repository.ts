// The statements of Up next (up-next.ts): a page of the shows with a next episode, read from the kept
// per-title figures through their index (user_title_figures_up_next), and the catalog side of the page's
// shows. Each costs the page: a show's row is joined with its one next episode (the episode's unique
// index), never with the user's history.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import { itemColumns } from '../catalog/repository.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { airedEpisode } from './history-repository.ts';

/** The last show of the page before: its latest watch to the microsecond (as text), and its title id. */
export type UpNextPosition = [string, string];

/**
 * The user's shows with a regular episode watched whose next regular episode (the first after the
 * furthest one watched, by season and episode number) has aired, latest watch first; not the shows the
 * user dropped. Each with that episode and the figures kept about the show.
 */
export function upNextPageQuery(k: Kysely<Tables>, userId: string, q: { after: UpNextPosition | null; rows: number }) {
  const { after } = q;
  return k
    .selectFrom('user_title_figures as f')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('episode as e')
          .select(['e.season_number', 'e.episode_number', 'e.name', 'e.air_date', 'e.runtime_minutes', 'e.still_path'])
          .whereRef('e.title_id', '=', 'f.title_id')
          .where('e.season_number', '>', 0)
          .where((eb) => eb(eb.refTuple('e.season_number', 'e.episode_number'), '>', eb.tuple(eb.ref('f.last_season').$notNull(), eb.ref('f.last_episode').$notNull())))
          .where(airedEpisode())
          .orderBy('e.season_number')
          .orderBy('e.episode_number')
          .limit(1)
          .as('n'),
      (join) => join.onTrue(),
    )
    .select((eb) => [
      'f.title_id',
      'f.regular_episodes',
      'f.last_watched_at',
      // The latest watch to the microsecond, for the keyset cursor (a JS Date keeps only milliseconds).
      eb.fn<string>('to_char', [eb.fn('timezone', [eb.val('UTC'), eb.ref('f.last_watched_at')]), eb.val('YYYY-MM-DD"T"HH24:MI:SS.US"Z"')]).as('position_at'),
      'n.season_number',
      'n.episode_number',
      'n.name as episode_name',
      'n.air_date',
      'n.runtime_minutes',
      'n.still_path',
    ])
    .where('f.user_id', '=', userId)
    .where('f.last_season', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('user_title_state as s')
            .select(eb.lit(1).as('one'))
            .whereRef('s.user_id', '=', 'f.user_id')
            .whereRef('s.title_id', '=', 'f.title_id')
            .where('s.show_status', '=', 'dropped'),
        ),
      ),
    )
    .$if(after !== null, (b) =>
      b.where((eb) =>
        eb(eb.refTuple('f.last_watched_at', 'f.title_id'), '<', eb.tuple(eb.cast<Date>(eb.val(after![0]), 'timestamptz'), eb.cast<string>(eb.val(after![1]), 'bigint'))),
      ),
    )
    .orderBy('f.last_watched_at', 'desc')
    .orderBy('f.title_id', 'desc')
    .limit(q.rows);
}

export const upNextRows = (em: EntityManager, userId: string, q: { after: UpNextPosition | null; rows: number }) => upNextPageQuery(db(em), userId, q).execute();

/** The page's shows as catalog items, each with its regular episodes aired so far (a count over the show's episodes). */
export function upNextShows(em: EntityManager, titleIds: readonly string[]) {
  return db(em)
    .selectFrom('title as t')
    .select((eb) => [
      't.id',
      ...itemColumns(eb),
      eb
        .selectFrom('episode as e')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .whereRef('e.title_id', '=', 't.id')
        .where('e.season_number', '>', 0)
        .where(airedEpisode())
        .as('aired_episodes'),
    ])
    .where((eb) => eb('t.id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}
