// Setting and removing ratings: the one path every writer of ratings uses (the ratings API, bulk sync),
// so the change feed sees each change. A rating targets a title as a whole (`title` for a movie,
// `series` for a show), one season, or one episode.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange, recordChanges, type Change } from '../changes/record.ts';
import { applyRatingFigures } from '../figures/ratings.ts';
import { libraryItems, type LibraryItem } from './library-items.ts';
import { deleteRating, lockTitleStates, upsertRating } from './title-state-repository.ts';
import { recordTitleState, titleStateRecords } from './title-state-write.ts';

export type RatingScope = 'title' | 'series' | 'season' | 'episode';

export type RatingTarget = { titleId: string; scope: RatingScope; season: number | null; episode: number | null };

/** `item`: the rating's item as it now stands, when it changed (as its change record shows it). */
export type RatingResult = { status: 'inserted' | 'updated' | 'skipped'; id: string; item?: LibraryItem };

/** Title-level ratings show in the title's favourite and status items: their records change too. */
export const isTitleLevel = (scope: RatingScope) => scope === 'title' || scope === 'series';

export async function setRating(tx: EntityManager, userId: string, target: RatingTarget, rating: number, ratedAt?: Date): Promise<RatingResult> {
  await lockTitleStates(tx, userId);
  // `changed` is false when the same rating was already there: nothing is written, nothing recorded.
  const row = await upsertRating(tx, userId, target, rating, ratedAt);
  if (!row) throw new Error('rating upsert returned nothing');
  if (!row.changed) return { status: 'skipped', id: String(row.id) };
  const [item] = await libraryItems(tx, userId, 'ratings', { ids: [String(row.id)] });
  const changes: Change[] = [{ resource: 'ratings', resourceId: row.id, op: 'upsert', data: item! }];
  await applyRatingFigures(tx, userId, [{ category: row.category, scope: target.scope, removedAt: row.inserted ? null : row.prev_rated_at, addedAt: row.rated_at }]);
  // The title's favourite and status items show its title-level rating: re-recorded with it, when there are any.
  if (isTitleLevel(target.scope) && row.has_state) {
    changes.push(...((await titleStateRecords(tx, userId, [{ id: target.titleId, type: row.type, movieDbId: row.movie_db_id }])).get(target.titleId) ?? []));
  }
  await recordChanges(tx, userId, changes);
  return { status: row.inserted ? 'inserted' : 'updated', id: String(row.id), item: item! };
}

/** Removes a rating; returns the removed rating's id, or null if there was none. */
export async function removeRating(tx: EntityManager, userId: string, target: RatingTarget): Promise<string | null> {
  await lockTitleStates(tx, userId);
  const row = await deleteRating(tx, userId, target);
  if (!row) return null;
  await recordChange(tx, userId, { resource: 'ratings', resourceId: row.id, op: 'delete', data: null });
  await applyRatingFigures(tx, userId, [{ category: row.category, scope: target.scope, removedAt: row.rated_at, addedAt: null }]);
  if (isTitleLevel(target.scope)) await recordTitleState(tx, userId, { id: target.titleId, type: row.type, movieDbId: row.movie_db_id }, { ratings: false });
  return String(row.id);
}
