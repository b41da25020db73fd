// The lock of a user's library: writes of their ratings, favourites and statuses, and every change of
// their kept figures (day rows, weekly challenge totals, streak runs and per-title rows are read,
// recomputed and written under it), are serialised by it for the rest of the transaction. One lock, not
// one for the figures beside one for title states: a history write takes it after the history lock (as
// the show-status rules always have), a rating write first, so no two writers can wait on each other.
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdLocks } from '../db/advisory-lock.ts';

/** The name of a user's library lock. */
export const titleStatesLock = (userId: string) => `title_state:${userId}`;

export async function lockTitleStates(tx: EntityManager, userId: string): Promise<void> {
  await holdLocks(tx, [titleStatesLock(userId)]);
}
