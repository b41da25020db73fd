// Setting and removing ratings: the one path every writer of ratings uses (the ratings API, bulk sync),
// so the change feed sees each change. A rating targets a title as a whole (`title` for a movie,
// `series` for a show), one season, or one episode.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { libraryItems, type LibraryItem } from './library-items.ts';
import { lockTitleStates, recordTitleState } from './title-state-write.ts';

export type RatingScope = 'title' | 'series' | 'season' | 'episode';

export type RatingTarget = { titleId: string; scope: RatingScope; season: number | null; episode: number | null };

export type RatingResult = { status: 'inserted' | 'updated' | 'skipped'; id: string };

/** The change-feed record of a rating: the `GET /me/ratings` item. */
export type RatingRecord = LibraryItem;

type Row = { id: string; inserted: boolean; changed: boolean; movie_db_id: number; type: 'movie' | 'show' };

/** Title-level ratings show in the title's favourite and status items: their records change too. */
const isTitleLevel = (scope: RatingScope) => scope === 'title' || scope === 'series';

// `changed` is false when the same rating was already there: nothing is written, nothing recorded.
const UPSERT = `
with prev as (
  select id, rating from user_rating
  where user_id = $1 and title_id = $2 and scope = $3 and season_number is not distinct from $4 and episode_number is not distinct from $5
), up as (
  insert into user_rating (user_id, title_id, scope, season_number, episode_number, rating, rated_at, updated_at)
  select $1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()), now()
  where not exists (select 1 from prev where prev.rating = $6)
  on conflict on constraint user_rating_target do update set rating = excluded.rating, rated_at = excluded.rated_at, updated_at = now()
  returning id, rating, rated_at, updated_at, (xmax = 0) as inserted, true as changed
)
select u.*, t.movie_db_id, t.type from (
  select * from up
  union all
  select r.id, r.rating, r.rated_at, r.updated_at, false, false from user_rating r
  where r.id = (select id from prev) and not exists (select 1 from up)
) u join title t on t.id = $2`;

export async function setRating(tx: EntityManager, userId: string, target: RatingTarget, rating: number, ratedAt?: Date): Promise<RatingResult> {
  await lockTitleStates(tx, userId);
  const [row] = await query<Row>(tx, {
    text: UPSERT,
    params: [userId, target.titleId, target.scope, target.season, target.episode, rating, ratedAt?.toISOString() ?? null],
  });
  if (!row) throw new Error('rating upsert returned nothing');
  if (row.changed) {
    const [item] = await libraryItems(tx, userId, 'ratings', { ids: [String(row.id)] });
    await recordChange(tx, userId, { resource: 'ratings', resourceId: row.id, op: 'upsert', data: item! });
    if (isTitleLevel(target.scope)) await recordTitleState(tx, userId, { id: target.titleId, type: row.type, movieDbId: row.movie_db_id }, { ratings: false });
  }
  return { status: !row.changed ? 'skipped' : row.inserted ? 'inserted' : 'updated', id: String(row.id) };
}

/** Removes a rating; returns the removed rating's id, or null if there was none. */
export async function removeRating(tx: EntityManager, userId: string, target: RatingTarget): Promise<string | null> {
  await lockTitleStates(tx, userId);
  const [row] = await query<{ id: string; type: 'movie' | 'show'; movie_db_id: number }>(tx, {
    text: `with del as (delete from user_rating where user_id = $1 and title_id = $2 and scope = $3
      and season_number is not distinct from $4 and episode_number is not distinct from $5 returning id, title_id)
      select del.id, t.type, t.movie_db_id from del join title t on t.id = del.title_id`,
    params: [userId, target.titleId, target.scope, target.season, target.episode],
  });
  if (!row) return null;
  await recordChange(tx, userId, { resource: 'ratings', resourceId: row.id, op: 'delete', data: null });
  if (isTitleLevel(target.scope)) await recordTitleState(tx, userId, { id: target.titleId, type: row.type, movieDbId: row.movie_db_id }, { ratings: false });
  return String(row.id);
}
