// What a change of ratings moves in the kept figures: the ratings held, the ratings given per UTC day
// (this month's reviews, the weekly challenges and XP) and the ratings list's counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tables } from '../schema/index.ts';
import { planDayDeltas, rebuildRunsAround, utcDayOf, type DayDelta } from './days.ts';
import { applyLibraryCounts, type LibraryCountDelta } from './library-counts.ts';
import { noFigureWrites, writeFigures } from './write-repository.ts';

/**
 * One rating's change: `removedAt` the rated_at of the rating as it was (null when it is new), `addedAt`
 * its rated_at now (null when it was removed). An update that keeps rated_at moves nothing; one that
 * changes it moves the rating from one day to another.
 */
export type RatingChange = {
  category: Tables['title']['category'];
  scope: Tables['user_rating']['scope'];
  removedAt: Date | string | null;
  addedAt: Date | string | null;
};

const NO_WATCHES = { watches: 0, movies: 0, episodes: 0, minutes: 0 };

/** Applies the changes to the user's figures, in the caller's transaction. */
export async function applyRatingFigures(tx: EntityManager, userId: string, changes: readonly RatingChange[]): Promise<void> {
  const days: DayDelta[] = [];
  const counts: LibraryCountDelta[] = [];
  let held = 0;
  for (const c of changes) {
    if (c.removedAt !== null) days.push({ day: utcDayOf(c.removedAt), ...NO_WATCHES, ratings: -1 });
    if (c.addedAt !== null) days.push({ day: utcDayOf(c.addedAt), ...NO_WATCHES, ratings: 1 });
    const delta = (c.addedAt === null ? 0 : 1) - (c.removedAt === null ? 0 : 1);
    if (delta === 0) continue;
    held += delta;
    counts.push({ list: 'ratings', category: c.category, scope: c.scope, status: '', delta });
  }
  const writes = noFigureWrites();
  writes.totals.ratings = held;
  const flipped = await planDayDeltas(tx, userId, days, writes);
  await writeFigures(tx, userId, writes);
  await rebuildRunsAround(tx, userId, flipped);
  await applyLibraryCounts(tx, userId, counts);
}
