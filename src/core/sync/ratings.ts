// Bulk ratings: titles (before the batch's transaction, bulk.ts), the episodes named by absolute number
// and the seasons resolved for the whole batch, then the writes applied set-based (ratings-repository.ts),
// each answered as setRating / removeRating (library/ratings-write.ts) would answer it, with their side
// effects: per changed rating its change record and, for a title-level rating, its title's favourite and
// status records (in item order, recorded in one insert), and the figures moved once for the batch.
//
// Two items for the same target apply one after the other, in item order: round k is one statement
// with the k-th item of every target, so a batch without such duplicates is one round.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveEpisodes } from '../catalog/resolve.ts';
import { recordChanges, type Change } from '../changes/record.ts';
import { db } from '../db/query-builder.ts';
import { applyRatingFigures, type RatingChange } from '../figures/ratings.ts';
import { libraryItems } from '../library/library-items.ts';
import { isTitleLevel, type RatingTarget } from '../library/ratings-write.ts';
import { lockTitleStates, titleStateRecords } from '../library/title-state-write.ts';
import { byIndex, deferred, matchItems, splitValid, type ItemTitles, type SyncItem, type Valid } from './items.ts';
import { seasonsFound } from './repository.ts';
import type { ItemResult } from '../schema/sync.ts';
import { writeRatingsQuery, type RatingWrite } from './ratings-repository.ts';
import { itemResult } from './results.ts';
import type { RatingItem } from './schemas.ts';

export const ratingItemType = (i: RatingItem): 'movie' | 'show' => i.type ?? (i.season != null || i.episode != null ? 'show' : 'movie');

export async function syncRatings(tx: EntityManager, userId: string, items: SyncItem<RatingItem>[], titles: ItemTitles): Promise<ItemResult[]> {
  const { results, valid } = splitValid(items);
  const { matched, unmatched } = matchItems(valid, titles);
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

  const writes: Write[] = [];
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
    writes.push({ m, target });
  }
  results.push(...(await applyWrites(tx, userId, writes)));
  return byIndex(results);
}

type Write = { m: Valid<RatingItem> & { title: { movieDbId: number } }; target: RatingTarget };

/** The writes in rounds: round k holds the k-th write of each target, in item order. */
function rounds(writes: Write[]): Write[][] {
  const seen = new Map<string, number>();
  const out: Write[][] = [];
  for (const w of writes) {
    const t = w.target;
    const key = `${t.titleId}/${t.scope}/${t.season ?? ''}/${t.episode ?? ''}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    (out[k] ??= []).push(w);
  }
  return out;
}

const writeOf = (w: Write, idx: number): RatingWrite => ({
  idx,
  title_id: w.target.titleId,
  scope: w.target.scope,
  season: w.target.season,
  episode: w.target.episode,
  rating: w.m.item.remove ? null : w.m.item.rating!,
  // As setRating binds it: to the millisecond.
  rated_at: !w.m.item.remove && w.m.item.rated_at ? new Date(w.m.item.rated_at).toISOString() : null,
});

/**
 * Applies the writes under the lock setRating takes (once for the batch): per round the write statement,
 * the items of the ratings it set and, when a title-level rating of a title with a favourite or status
 * changed, that title's records. Then the change records of the whole batch in one insert, and one call
 * of the figures with each changed rating's change (skipped items move nothing).
 */
async function applyWrites(tx: EntityManager, userId: string, writes: Write[]): Promise<ItemResult[]> {
  if (writes.length === 0) return [];
  await lockTitleStates(tx, userId);
  const results: ItemResult[] = [];
  // Per changed item (by its index): its change records, and its change of the figures.
  const records: { index: number; changes: Change[] }[] = [];
  const figures: { index: number; change: RatingChange }[] = [];
  for (const round of rounds(writes)) {
    const rows = await writeRatingsQuery(db(tx), userId, round.map(writeOf)).execute();
    // What the round's changes show, read before the next round changes it again.
    const setIds = rows.filter((r) => r.written).map((r) => String(r.id));
    const items = new Map(setIds.length ? (await libraryItems(tx, userId, 'ratings', { ids: setIds })).map((i) => [String(i.id), i]) : []);
    const stateTitles = rows
      .filter((r) => (r.written || r.removed) && r.has_state && isTitleLevel(round[r.idx]!.target.scope))
      .map((r) => ({ id: round[r.idx]!.target.titleId, type: r.type, movieDbId: r.movie_db_id }));
    const states = await titleStateRecords(tx, userId, stateTitles);

    for (const r of rows) {
      const { m, target } = round[r.idx]!;
      const resolved = { resolved_movie_db_id: m.title.movieDbId };
      const stateChanges = isTitleLevel(target.scope) ? (states.get(target.titleId) ?? []) : [];
      if (m.item.remove) {
        if (!r.removed) {
          results.push(itemResult(m.index, m.clientItemId, 'skipped', { reason: 'absent', ...resolved }));
          continue;
        }
        results.push(itemResult(m.index, m.clientItemId, 'removed', { id: Number(r.id), ...resolved }));
        records.push({ index: m.index, changes: [{ resource: 'ratings', resourceId: r.id!, op: 'delete', data: null }, ...stateChanges] });
        figures.push({ index: m.index, change: { category: r.category, scope: target.scope, removedAt: r.prev_rated_at, addedAt: null } });
        continue;
      }
      if (r.id === null) throw new Error('rating write returned nothing');
      if (!r.written) {
        results.push(itemResult(m.index, m.clientItemId, 'skipped', { id: Number(r.id), reason: 'unchanged', ...resolved }));
        continue;
      }
      const inserted = r.prev_id === null;
      results.push(itemResult(m.index, m.clientItemId, inserted ? 'inserted' : 'updated', { id: Number(r.id), ...resolved }));
      records.push({ index: m.index, changes: [{ resource: 'ratings', resourceId: r.id, op: 'upsert', data: items.get(r.id)! }, ...stateChanges] });
      figures.push({ index: m.index, change: { category: r.category, scope: target.scope, removedAt: inserted ? null : r.prev_rated_at, addedAt: r.rated_at } });
    }
  }
  // In item order, as one write after another would have recorded them.
  await recordChanges(tx, userId, records.sort((a, b) => a.index - b.index).flatMap((c) => c.changes));
  if (figures.length) await applyRatingFigures(tx, userId, figures.sort((a, b) => a.index - b.index).map((f) => f.change));
  return results;
}
