// Which catalog fetcher belongs to a running service, found from any EntityManager of its database (as
// the event bus is, events/registry.ts): core functions receive an `em`, and two service instances may
// run in one process (tests). Without a fetcher (no provider configured, the CLI) nothing is fetched and
// a missing title is answered as before: `deferred` in a sync, 404 or 422 elsewhere.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { TitleRef } from '../resolve.ts';
import type { CatalogFetcher } from './fetcher.ts';

const fetchers = new WeakMap<object, CatalogFetcher>();

export function attachCatalogFetcher(orm: MikroORM, fetcher: CatalogFetcher): void {
  fetchers.set(orm.em.config, fetcher);
}

export function catalogFetcherOf(em: EntityManager): CatalogFetcher | undefined {
  return fetchers.get(em.config);
}

/**
 * Before a read or write that names titles by id, outside its transaction: the titles the catalog lacks
 * are fetched from the provider, waiting for them at most the configured bound. Costs nothing without
 * a provider; one query with one (the titles are looked for first).
 */
export async function ensureInCatalog(em: EntityManager, refs: TitleRef[], opts: { waitMs?: number } = {}): Promise<void> {
  await catalogFetcherOf(em)?.ensure(em, refs, opts.waitMs);
}
