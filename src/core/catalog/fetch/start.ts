// The living catalog of a running service: with a provider key, a fetcher attached to the service's ORM
// (registry.ts) for the first uses of missing titles and for the refresh; without one, nothing.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.ts';
import { providerBucket } from './bucket.ts';
import { CatalogFetcher } from './fetcher.ts';
import { movieDbProvider } from './provider.ts';
import { attachCatalogFetcher } from './registry.ts';

export type LivingCatalogSettings = {
  movieDbApiKey: string | undefined;
  movieDbApiUrl: string;
  movieDbRequestsPerSecond: number;
  catalogFetchWaitMs: number;
  redisKeyPrefix: string;
};

export type LivingCatalog = { fetcher: CatalogFetcher; close(): Promise<void> };

export function startLivingCatalog(orm: MikroORM, settings: LivingCatalogSettings, log: Logger, redis?: Redis): LivingCatalog | undefined {
  if (!settings.movieDbApiKey) return undefined;
  // Aborted on close: a provider request under way ends, and what it was fetching is tried again later.
  const stop = new AbortController();
  const bucket = providerBucket({ perSecond: settings.movieDbRequestsPerSecond, redis, prefix: settings.redisKeyPrefix });
  const provider = movieDbProvider({ apiKey: settings.movieDbApiKey, baseUrl: settings.movieDbApiUrl, bucket, signal: stop.signal });
  const fetcher = new CatalogFetcher({ orm, provider, log: log.child({ component: 'catalog-fetch' }), waitMs: settings.catalogFetchWaitMs });
  attachCatalogFetcher(orm, fetcher);
  return {
    fetcher,
    close: async () => {
      stop.abort();
      await fetcher.close();
    },
  };
}
