// How many items the user's watchlist holds and when it last changed, without its items: what an answer
// to a watchlist write reports about the list (one statement over the one-watchlist-per-owner index).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type WatchlistFigures = { itemCount: number; updatedAt: Date };

/** The user's watchlist's figures, or null when the user has none yet. */
export async function watchlistFigures(em: EntityManager, userId: string): Promise<WatchlistFigures | null> {
  const row = await db(em)
    .selectFrom('list as l')
    .select(['l.item_count', 'l.updated_at'])
    .where('l.owner_id', '=', userId)
    .where('l.is_watchlist', '=', true)
    .executeTakeFirst();
  return row ? { itemCount: row.item_count, updatedAt: new Date(row.updated_at) } : null;
}
