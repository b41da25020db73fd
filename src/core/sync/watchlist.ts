// Bulk watchlist: titles resolved for the whole batch (before its transaction, bulk.ts), then each item
// added or removed in order through the lists module's watchlist writes (which record the changes).
import type { EntityManager } from '@mikro-orm/postgresql';
import { addToWatchlist, removeFromWatchlist } from '../lists/watchlist.ts';
import { byIndex, matchItems, splitValid, type ItemTitles, type SyncItem } from './items.ts';
import type { ItemResult } from '../schema/sync.ts';
import { itemResult } from './results.ts';
import type { WatchlistItem } from './schemas.ts';

export const watchlistItemType = (i: WatchlistItem): 'movie' | 'show' => i.type ?? 'movie';

export async function syncWatchlist(tx: EntityManager, userId: string, items: SyncItem<WatchlistItem>[], titles: ItemTitles): Promise<ItemResult[]> {
  const { results, valid } = splitValid(items);
  const { matched, unmatched } = matchItems(valid, titles);
  results.push(...unmatched);
  for (const m of matched) {
    const resolved = { resolved_movie_db_id: m.title.movieDbId };
    if (m.item.remove) {
      const removed = await removeFromWatchlist(tx, userId, m.title.id);
      results.push(
        removed === null
          ? itemResult(m.index, m.clientItemId, 'skipped', { reason: 'absent', ...resolved })
          : itemResult(m.index, m.clientItemId, 'removed', { id: Number(removed), ...resolved }),
      );
      continue;
    }
    const r = await addToWatchlist(tx, userId, m.title.id);
    results.push(itemResult(m.index, m.clientItemId, r.status, { id: Number(r.id), reason: r.status === 'skipped' ? 'duplicate' : null, ...resolved }));
  }
  return byIndex(results);
}
