// How an import finds its titles: the bulk-sync item's title reference (ids first, then title + year)
// resolved in one query per batch, those the catalog lacks fetched from the metadata provider before the
// batch's transaction, and the shape the title-state writes take.
import type { EntityManager } from '@mikro-orm/postgresql';
import { fetchMissingTitles } from '../catalog/fetch/registry.ts';
import { resolveTitles, type ResolvedTitle } from '../catalog/resolve.ts';
import type { StateTitle } from '../library/title-state-write.ts';
import { titleRef } from '../sync/items.ts';
import type { ImportTitleRef } from './records.ts';

/**
 * The catalog titles of `refs`, in order (null: not found). A ref that names no type is looked for as
 * `fallback` first, then as the other type.
 */
export async function resolveImportTitles(tx: EntityManager, refs: readonly ImportTitleRef[], fallback: 'movie' | 'show'): Promise<(ResolvedTitle | null)[]> {
  const found = await resolveTitles(tx, refs.map((r) => titleRef(r, r.type ?? fallback)));
  const retry = refs.flatMap((r, i) => (found[i] === null && !r.type ? [i] : []));
  if (retry.length) {
    const other = fallback === 'movie' ? 'show' : 'movie';
    const again = await resolveTitles(tx, retry.map((i) => titleRef(refs[i]!, other)));
    retry.forEach((i, k) => (found[i] = again[k] ?? null));
  }
  return found;
}

/**
 * Fetches the titles of `refs` the catalog lacks (as either type, for a ref that names none), waiting
 * at most `waitMs`; a ref that names no type is fetched as `fallback`, the type it is looked for first.
 * Only where a provider is attached (the caller checks: without one this is not worth a query).
 */
export async function fetchMissingImportTitles(em: EntityManager, refs: readonly ImportTitleRef[], fallback: 'movie' | 'show', waitMs: number): Promise<void> {
  const found = await resolveImportTitles(em, refs, fallback);
  const missing = refs.flatMap((r, i) => (found[i] ? [] : [titleRef(r, r.type ?? fallback)]));
  await fetchMissingTitles(em, missing, { waitMs });
}

export const stateTitle = (t: ResolvedTitle): StateTitle => ({ id: t.id, type: t.type, movieDbId: t.movieDbId });
