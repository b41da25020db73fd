// Public catalog reads: search, discover, trending. Inputs arrive validated (schemas.ts); answers are
// cached briefly (cache.ts), keyed by the read and its normalised input.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CatalogCache } from './cache.ts';
import { toCatalogItem } from './present.ts';
import { countTitles, discoverItems, searchItems, trendingItems, type ItemRow } from './repository.ts';
import type { CatalogItem, DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export type CatalogDeps = { em: EntityManager; imageBaseUrl: string; cache: CatalogCache };
type Items = { items: CatalogItem[] };

function cachedItems(deps: CatalogDeps, key: string, read: (em: EntityManager) => Promise<ItemRow[]>): Promise<Items> {
  return deps.cache.get(key, async () => {
    const rows = await read(deps.em);
    return { items: rows.map((r) => toCatalogItem(r, deps.imageBaseUrl)) };
  });
}

// Search is case-insensitive throughout, so "Spirited Away" and "spirited away" share an entry.
export const searchCatalog = (deps: CatalogDeps, input: SearchInput) =>
  cachedItems(deps, `search:${JSON.stringify({ ...input, q: input.q.toLowerCase() })}`, (em) => searchItems(em, input));
export const discoverCatalog = (deps: CatalogDeps, input: DiscoverInput) => cachedItems(deps, `discover:${JSON.stringify(input)}`, (em) => discoverItems(em, input));
export const trendingCatalog = (deps: CatalogDeps, input: TrendingInput) => cachedItems(deps, `trending:${JSON.stringify(input)}`, (em) => trendingItems(em, input));

export const catalogSize = (em: EntityManager): Promise<number> => countTitles(em);
