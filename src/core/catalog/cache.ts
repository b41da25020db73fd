// A bounded, time-limited cache of public catalog answers. The public catalog is the same for everyone
// and changes only when an import runs, while the same searches repeat all day: answering them from
// memory keeps search fast under load. An entry lives `seconds` at most, so a catalog import made by
// another process shows within that time (the answers also say so with Cache-Control).
import { LRUCache } from 'lru-cache';

export type CatalogCache = {
  readonly seconds: number;
  get<T extends object>(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
  stats(): { hits: number; misses: number; size: number };
};

export function createCatalogCache(seconds: number, maxEntries = 10_000): CatalogCache {
  let hits = 0;
  let misses = 0;
  if (seconds <= 0) {
    return { seconds, get: (_key, load) => load(), clear: () => {}, stats: () => ({ hits, misses, size: 0 }) };
  }
  // Promises are cached, so concurrent identical requests share one query.
  const cache = new LRUCache<string, Promise<object>>({ max: maxEntries, ttl: seconds * 1000 });
  return {
    seconds,
    get: async <T extends object>(key: string, load: () => Promise<T>): Promise<T> => {
      const found = cache.get(key);
      if (found) {
        hits++;
        return found as Promise<T>;
      }
      misses++;
      const pending = load();
      cache.set(key, pending);
      // A failed load is not remembered.
      pending.catch(() => cache.delete(key));
      return pending;
    },
    clear: () => cache.clear(),
    stats: () => ({ hits, misses, size: cache.size }),
  };
}
