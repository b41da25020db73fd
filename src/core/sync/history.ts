// Bulk history: every item resolved at once (the titles before the transaction, bulk.ts; then the shows'
// episodes), then one logWatches call for the whole batch (dedup, change records and show-status
// transitions live there).
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveEpisodes } from '../catalog/resolve.ts';
import { logWatches, type WatchInput } from '../library/history-write.ts';
import { byIndex, deferred, matchItems, splitValid, type ItemTitles, type SyncItem } from './items.ts';
import type { ItemResult } from '../schema/sync.ts';
import { itemResult } from './results.ts';
import type { HistoryItem } from './schemas.ts';

/** An item with a season or an episode names a show; otherwise a movie. */
export const historyItemType = (i: HistoryItem) => (i.season != null || i.episode != null ? 'show' : 'movie');

export async function syncHistory(
  tx: EntityManager,
  userId: string,
  clientId: string,
  items: SyncItem<HistoryItem>[],
  titles: ItemTitles,
  opts: { statusRules?: boolean } = {},
): Promise<ItemResult[]> {
  const { results, valid } = splitValid(items);
  const { matched, unmatched } = matchItems(valid, titles);
  results.push(...unmatched);

  const shows = matched.filter((m) => m.title.type === 'show');
  const episodes = await resolveEpisodes(
    tx,
    shows.map((m) => (m.item.season != null ? { titleId: m.title.id, season: m.item.season, episode: m.item.episode! } : { titleId: m.title.id, absolute: m.item.episode! })),
  );
  const episodeOf = new Map(shows.map((m, i) => [m.index, episodes[i] ?? null]));

  const toLog: { m: (typeof matched)[number]; watch: WatchInput }[] = [];
  for (const m of matched) {
    const ep = m.title.type === 'show' ? episodeOf.get(m.index) : null;
    if (ep === null && m.title.type === 'show') {
      results.push(deferred(m));
      continue;
    }
    toLog.push({
      m,
      watch: {
        titleId: m.title.id,
        episodeId: ep?.id ?? null,
        season: ep?.season ?? null,
        episode: ep?.episode ?? null,
        watchedAt: new Date(m.item.watched_at),
        runtimeMinutes: m.item.runtime_minutes ?? ep?.runtimeMinutes ?? m.title.runtimeMinutes,
        source: 'sync',
        clientId,
      },
    });
  }
  const logged = await logWatches(tx, userId, toLog.map((l) => l.watch), opts);
  toLog.forEach(({ m }, i) => {
    const r = logged[i]!;
    results.push(
      itemResult(m.index, m.clientItemId, r.status, { id: Number(r.id), reason: r.status === 'skipped' ? 'duplicate' : null, resolved_movie_db_id: m.title.movieDbId }),
    );
  });
  return byIndex(results);
}
