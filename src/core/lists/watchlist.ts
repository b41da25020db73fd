// The user's watchlist (one per user, made on first use), as bulk sync and the planning endpoints write
// it. Call inside a transaction; each write records its change.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { recordListWrite } from './changes.ts';
import { addTitles, removeTitle } from './items.ts';

export type WatchlistResult = { status: 'inserted' | 'skipped'; id: string };

export const WATCHLIST_NAME = 'Watchlist';

/**
 * The id of the user's watchlist, made now if the user has none (recorded in the change feed), with
 * its row locked for the rest of the transaction. Two first uses at once make one watchlist: the unique
 * index on (owner) where is_watchlist makes the second insert wait and then do nothing.
 */
export async function ensureWatchlist(tx: EntityManager, userId: string): Promise<string> {
  const created = await query<{ id: string }>(tx, {
    text: `insert into list (owner_id, name, is_watchlist) values ($1, $2, true)
      on conflict (owner_id) where is_watchlist do nothing returning id`,
    params: [userId, WATCHLIST_NAME],
  });
  const [row] = await query<{ id: string }>(tx, { text: `select id from list where owner_id = $1 and is_watchlist for update`, params: [userId] });
  const id = String(row!.id);
  if (created.length) await recordListWrite(tx, id);
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
  const [row] = await query<{ id: string }>(tx, { text: `select id from list where owner_id = $1 and is_watchlist for update`, params: [userId] });
  if (!row) return null;
  const listId = String(row.id);
  const removed = await removeTitle(tx, listId, titleId);
  if (removed) await recordListWrite(tx, listId, { deletedItems: [removed] });
  return removed;
}
