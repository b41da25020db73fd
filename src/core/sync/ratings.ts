// Bulk ratings: titles (and the episodes named by absolute number, and the seasons) resolved for the
// whole batch, then each item through setRating / removeRating in order, so two items for the same
// target apply one after the other.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveEpisodes } from '../catalog/resolve.ts';
import { removeRating, setRating, type RatingTarget } from '../library/ratings-write.ts';
import { byIndex, deferred, resolveItems, splitValid, type SyncItem } from './items.ts';
import { seasonsFound } from './repository.ts';
import type { ItemResult } from '../schema/sync.ts';
import { itemResult } from './results.ts';
import type { RatingItem } from './schemas.ts';

const typeOf = (i: RatingItem) => i.type ?? (i.season != null || i.episode != null ? 'show' : 'movie');

export async function syncRatings(tx: EntityManager, userId: string, items: SyncItem<RatingItem>[]): Promise<ItemResult[]> {
  const { results, valid } = splitValid(items);
  const { matched, unmatched } = await resolveItems(tx, valid, typeOf);
  results.push(...unmatched);

  const wantsEpisode = matched.filter((m) => m.title.type === 'show' && m.item.episode != null);
  const episodes = await resolveEpisodes(
    tx,
    wantsEpisode.map((m) => (m.item.season != null ? { titleId: m.title.id, season: m.item.season, episode: m.item.episode! } : { titleId: m.title.id, absolute: m.item.episode! })),
  );
  const episodeOf = new Map(wantsEpisode.map((m, i) => [m.index, episodes[i] ?? null]));
  const wantsSeason = matched.filter((m) => m.title.type === 'show' && m.item.season != null && m.item.episode == null);
  const found = await seasonsFound(tx, wantsSeason.map((m) => ({ titleId: m.title.id, season: m.item.season! })));
  const seasonFound = new Set(wantsSeason.filter((m) => found.has(`${m.title.id}:${m.item.season}`)).map((m) => m.index));

  for (const m of matched) {
    let target: RatingTarget;
    if (m.title.type === 'movie') target = { titleId: m.title.id, scope: 'title', season: null, episode: null };
    else if (m.item.episode != null) {
      const ep = episodeOf.get(m.index);
      if (!ep) {
        results.push(deferred(m));
        continue;
      }
      target = { titleId: m.title.id, scope: 'episode', season: ep.season, episode: ep.episode };
    } else if (m.item.season != null) {
      if (!seasonFound.has(m.index)) {
        results.push(deferred(m));
        continue;
      }
      target = { titleId: m.title.id, scope: 'season', season: m.item.season, episode: null };
    } else target = { titleId: m.title.id, scope: 'series', season: null, episode: null };

    const resolved = { resolved_movie_db_id: m.title.movieDbId };
    if (m.item.remove) {
      const removed = await removeRating(tx, userId, target);
      results.push(
        removed === null
          ? itemResult(m.index, m.clientItemId, 'skipped', { reason: 'absent', ...resolved })
          : itemResult(m.index, m.clientItemId, 'removed', { id: Number(removed), ...resolved }),
      );
      continue;
    }
    const r = await setRating(tx, userId, target, m.item.rating!, m.item.rated_at ? new Date(m.item.rated_at) : undefined);
    results.push(itemResult(m.index, m.clientItemId, r.status, { id: Number(r.id), reason: r.status === 'skipped' ? 'unchanged' : null, ...resolved }));
  }
  return byIndex(results);
}
