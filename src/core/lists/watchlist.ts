// The user's watchlist (one per user, made on first use), as bulk sync and the planning endpoints write
// it. Call inside a transaction; each write records its change. (Filled in by the lists module.)
import type { EntityManager } from '@mikro-orm/postgresql';

export type WatchlistResult = { status: 'inserted' | 'skipped'; id: string };

/** Adds a title; a title already there is `skipped` with the existing item's id. */
export async function addToWatchlist(_tx: EntityManager, _userId: string, _titleId: string): Promise<WatchlistResult> {
  throw new Error('watchlist not built yet');
}

/** Removes a title; the removed item's id, or null when it was not there. */
export async function removeFromWatchlist(_tx: EntityManager, _userId: string, _titleId: string): Promise<string | null> {
  throw new Error('watchlist not built yet');
}
