// The user's watchlist (one per user, made on first use), as bulk sync and the planning endpoints write
// it. Call inside a transaction; each write records its change.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordListWrite } from './changes.ts';
import { addTitles, removeTitle } from './items.ts';
import { insertWatchlist, lockWatchlist } from './repository.ts';

export type WatchlistResult = { status: 'inserted' | 'skipped'; id: string };

const WATCHLIST_NAME = 'Watchlist';

/**
 * The id of the user's watchlist, made now if the user has none (recorded in the change feed), with
 * its row locked for the rest of the transaction. Two first uses at once make one watchlist: the unique
 * index on (owner) where is_watchlist makes the second insert wait and then do nothing.
 */
export async function ensureWatchlist(tx: EntityManager, userId: string): Promise<string> {
  const created = await insertWatchlist(tx, userId, WATCHLIST_NAME);
  const id = (await lockWatchlist(tx, userId))!;
  if (created) await recordListWrite(tx, id);
  return id;
}

/** Adds a title; a title already there is `skipped` with the existing item's id. */
export async function addToWatchlist(tx: EntityManager, userId: string, titleId: string): Promise<WatchlistResult> {
  const listId = await ensureWatchlist(tx, userId);
  const [result] = await addTitles(tx, listId, [titleId], userId);
  if (result!.status === 'added') await recordListWrite(tx, listId, { upsertedItems: [result!.id] });
  return { status: result!.status === 'added' ? 'inserted' : 'skipped', id: result!.id };
}

/** Removes a title; the removed item's id, or null when it was not there. */
export async function removeFromWatchlist(tx: EntityManager, userId: string, titleId: string): Promise<string | null> {
  const listId = await lockWatchlist(tx, userId);
  if (!listId) return null;
  const removed = await removeTitle(tx, listId, titleId);
  if (removed) await recordListWrite(tx, listId, { deletedItems: [removed] });
  return removed;
}
