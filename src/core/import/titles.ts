// How an import finds its titles: the bulk-sync item's title reference (ids first, then title + year)
// resolved in one query per batch, and the shape the title-state writes take.
import type { EntityManager } from '@mikro-orm/postgresql';
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

export const stateTitle = (t: ResolvedTitle): StateTitle => ({ id: t.id, type: t.type, movieDbId: t.movieDbId });
