// Public catalog reads: search, discover, trending. Inputs arrive validated (schemas.ts); answers are
// cached briefly (cache.ts), keyed by the read and its normalised input.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CatalogCache } from './cache.ts';
import { toCatalogItem, type ItemRow } from './present.ts';
import { query, type Sql } from '../db/sql.ts';
import { discoverSql, searchSql, trendingSql } from './queries.ts';
import type { CatalogItem, DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export type CatalogDeps = { em: EntityManager; imageBaseUrl: string; cache: CatalogCache };
type Items = { items: CatalogItem[] };

function cachedItems(deps: CatalogDeps, key: string, sql: () => Sql): Promise<Items> {
  return deps.cache.get(key, async () => {
    const rows = await query<ItemRow>(deps.em, sql());
    return { items: rows.map((r) => toCatalogItem(r, deps.imageBaseUrl)) };
  });
}

// Search is case-insensitive throughout, so "Spirited Away" and "spirited away" share an entry.
export const searchCatalog = (deps: CatalogDeps, input: SearchInput) =>
  cachedItems(deps, `search:${JSON.stringify({ ...input, q: input.q.toLowerCase() })}`, () => searchSql(input));
export const discoverCatalog = (deps: CatalogDeps, input: DiscoverInput) => cachedItems(deps, `discover:${JSON.stringify(input)}`, () => discoverSql(input));
export const trendingCatalog = (deps: CatalogDeps, input: TrendingInput) => cachedItems(deps, `trending:${JSON.stringify(input)}`, () => trendingSql(input));

export async function catalogSize(em: EntityManager): Promise<number> {
  const [row] = await query<{ n: number }>(em, { text: 'select count(*)::int as n from title', params: [] });
  return row?.n ?? 0;
}
