// Items of a bulk write as the core receives them: each already validated on its own, or carrying the
// reason it is invalid. Titles of the valid ones are resolved in one query per batch, before the batch's
// transaction (bulk.ts).
import type { ResolvedTitle, TitleRef } from '../catalog/resolve.ts';
import type { ItemResult } from '../schema/sync.ts';
import { itemResult } from './results.ts';

export type SyncItem<T> = { index: number; clientItemId: string | null } & ({ ok: true; item: T } | { ok: false; error: string });

export type Valid<T> = { index: number; clientItemId: string | null; item: T };

type RefFields = {
  movie_db_id?: number | null;
  tv_db_id?: number | null;
  film_db_id?: string | null;
  anime_db_id?: number | null;
  title?: string | null;
  year?: number | null;
};

export function titleRef(item: RefFields, type: 'movie' | 'show'): TitleRef {
  return {
    type,
    movieDbId: item.movie_db_id ?? undefined,
    tvDbId: item.tv_db_id ?? undefined,
    filmDbId: item.film_db_id ?? undefined,
    animeDbId: item.anime_db_id ?? undefined,
    title: item.title ?? undefined,
    year: item.year ?? undefined,
  };
}

/** Each valid item's title, by the item's index (null: not in the catalog). */
export type ItemTitles = ReadonlyMap<number, ResolvedTitle | null>;

/** A valid item's title reference; `adds`: the item adds rather than removes (a title worth fetching when missing). */
export type ItemTitleRef = { ref: TitleRef; adds: boolean };

/** Each valid item's title reference, by the item's index; `typeOf` says what an item names. */
export function itemTitleRefs<T extends RefFields & { remove?: boolean | null }>(items: SyncItem<T>[], typeOf: (item: T) => 'movie' | 'show'): Map<number, ItemTitleRef> {
  return new Map(items.flatMap((i) => (i.ok ? [[i.index, { ref: titleRef(i.item, typeOf(i.item)), adds: !i.item.remove }] as const] : [])));
}

/** Splits a batch: results for the invalid items, and the valid ones to apply. */
export function splitValid<T>(items: SyncItem<T>[]): { results: ItemResult[]; valid: Valid<T>[] } {
  const results: ItemResult[] = [];
  const valid: Valid<T>[] = [];
  for (const i of items) {
    if (i.ok) valid.push({ index: i.index, clientItemId: i.clientItemId, item: i.item });
    else results.push(itemResult(i.index, i.clientItemId, 'invalid', { error: i.error }));
  }
  return { results, valid };
}

/** The valid items with their titles (resolved for the batch); `deferred`/`unmatched` results for those not found. */
export function matchItems<T>(valid: Valid<T>[], titles: ItemTitles): { matched: (Valid<T> & { title: ResolvedTitle })[]; unmatched: ItemResult[] } {
  const matched: (Valid<T> & { title: ResolvedTitle })[] = [];
  const unmatched: ItemResult[] = [];
  for (const v of valid) {
    const title = titles.get(v.index);
    if (title) matched.push({ ...v, title });
    else unmatched.push(deferred(v));
  }
  return { matched, unmatched };
}

/** Not in the catalog (yet): the title, or a resolved show's season or episode. */
export function deferred(v: { index: number; clientItemId: string | null; title?: ResolvedTitle }): ItemResult {
  return itemResult(v.index, v.clientItemId, 'deferred', { reason: 'unmatched', resolved_movie_db_id: v.title?.movieDbId ?? null });
}

export function byIndex(results: ItemResult[]): ItemResult[] {
  return results.sort((a, b) => a.index - b.index);
}
