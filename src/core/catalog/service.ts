// Public catalog reads: search, discover, trending. Inputs arrive validated (schemas.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { toCatalogItem, type ItemRow } from './present.ts';
import { discoverSql, searchSql, trendingSql, type Sql } from './queries.ts';
import type { CatalogItem, DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export type CatalogDeps = { em: EntityManager; imageBaseUrl: string };

async function items(deps: CatalogDeps, sql: Sql): Promise<{ items: CatalogItem[] }> {
  const rows = await deps.em.execute<ItemRow[]>(sql.text, sql.params);
  return { items: rows.map((r) => toCatalogItem(r, deps.imageBaseUrl)) };
}

export const searchCatalog = (deps: CatalogDeps, input: SearchInput) => items(deps, searchSql(input));
export const discoverCatalog = (deps: CatalogDeps, input: DiscoverInput) => items(deps, discoverSql(input));
export const trendingCatalog = (deps: CatalogDeps, input: TrendingInput) => items(deps, trendingSql(input));

export async function catalogSize(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>('select count(*)::int as n from title');
  return row?.n ?? 0;
}
