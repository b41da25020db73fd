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

/**
 * What the cache may hold, in characters of the answers' JSON (about the bytes they take on the heap, or
 * less): bounded by size, not by count, since a search answer is a few KB and a discover page of 50 items
 * tens of KB. 10,000 answers of any size had let a crawl of distinct searches hold hundreds of MB.
 */
const CATALOG_CACHE_MAX_CHARS = 16 * 1024 * 1024;

export function createCatalogCache(seconds: number, maxChars = CATALOG_CACHE_MAX_CHARS): CatalogCache {
  let hits = 0;
  let misses = 0;
  if (seconds <= 0) {
    return { seconds, get: (_key, load) => load(), clear: () => {}, stats: () => ({ hits, misses, size: 0 }) };
  }
  const cache = new LRUCache<string, object>({ maxSize: maxChars, sizeCalculation: (value, key) => key.length + JSON.stringify(value).length, ttl: seconds * 1000 });
  // Loads in progress, so concurrent identical requests share one query; kept once they succeed.
  const loading = new Map<string, Promise<object>>();
  return {
    seconds,
    get: async <T extends object>(key: string, load: () => Promise<T>): Promise<T> => {
      const found = cache.get(key) ?? loading.get(key);
      if (found) {
        hits++;
        return found as T | Promise<T>;
      }
      misses++;
      const pending = load()
        // An answer larger than the whole cache is not kept (lru-cache refuses it).
        .then((value) => (cache.set(key, value), value))
        // A failed load is not remembered.
        .finally(() => loading.delete(key));
      loading.set(key, pending);
      return pending;
    },
    clear: () => {
      cache.clear();
      loading.clear();
    },
    stats: () => ({ hits, misses, size: cache.size }),
  };
}
