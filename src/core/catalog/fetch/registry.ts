// Which catalog fetcher belongs to a running service, found from any EntityManager of its database (as
// the event bus is, events/registry.ts): core functions receive an `em`, and two service instances may
// run in one process (tests). Without a fetcher (no provider configured, the CLI) nothing is fetched and
// a missing title is answered as before: `deferred` in a sync, 404 or 422 elsewhere.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { resolveTitles, type ResolvedTitle, type TitleRef } from '../resolve.ts';
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

export type ResolveOrFetchOptions = {
  /** How long to wait for the fetches; the configured bound by default. */
  waitMs?: number;
  /** Which refs, by index, may be fetched (all by default): not those a removal names. */
  fetch?: (index: number) => boolean;
};

/**
 * resolveTitles, fetching what the catalog lacks: with a provider attached and some titles not found,
 * those an id names are fetched (waiting at most the bound) and looked for again. Without a provider,
 * or with every title found, it is resolveTitles' one query: the way for a write to find the titles it
 * names, outside its transaction (inside one nothing is waited for, and the fetch goes on in the background).
 */
export async function resolveOrFetchTitles(em: EntityManager, refs: TitleRef[], opts: ResolveOrFetchOptions = {}): Promise<(ResolvedTitle | null)[]> {
  const found = await resolveTitles(em, refs);
  const fetcher = catalogFetcherOf(em);
  const missing = fetcher ? found.flatMap((t, i) => (t || (opts.fetch && !opts.fetch(i)) ? [] : [i])) : [];
  if (missing.length === 0 || !(await fetcher!.ensureMissing(em, missing.map((i) => refs[i]!), opts.waitMs))) return found;
  const again = await resolveTitles(em, missing.map((i) => refs[i]!));
  missing.forEach((i, k) => (found[i] = again[k] ?? null));
  return found;
}

export async function resolveOrFetchTitle(em: EntityManager, ref: TitleRef, opts: { waitMs?: number } = {}): Promise<ResolvedTitle | null> {
  const [found] = await resolveOrFetchTitles(em, [ref], opts);
  return found ?? null;
}

/**
 * Fetches titles the caller has just looked for and not found, waiting at most the bound; a no-op
 * without a provider. Whether it waited for a fetch (only then can looking again find more).
 */
export async function fetchMissingTitles(em: EntityManager, missing: TitleRef[], opts: { waitMs?: number } = {}): Promise<boolean> {
  return (await catalogFetcherOf(em)?.ensureMissing(em, missing, opts.waitMs)) ?? false;
}

/**
 * A read of one title (a detail, its seasons): when it finds nothing and a provider is configured, the
 * title is fetched (waiting at most the bound) and read again. A found title costs the read alone.
 */
export async function readFetching<R>(em: EntityManager, ref: TitleRef, read: () => Promise<R | undefined>): Promise<R | undefined> {
  const row = await read();
  if (row || !(await fetchMissingTitles(em, [ref]))) return row;
  return read();
}
