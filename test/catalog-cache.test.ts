// The catalog answer cache: shared loads, expiry, failures not remembered, and off at 0 seconds.
import { describe, expect, it, vi } from 'vitest';
import { createCatalogCache } from '../src/core/catalog/cache.ts';

describe('createCatalogCache', () => {
  it('answers repeated keys from memory, one load for concurrent callers', async () => {
    const cache = createCatalogCache(60);
    const load = vi.fn(async () => ({ items: [1] }));
    const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    expect(a).toBe(b);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.stats()).toEqual({ hits: 2, misses: 1, size: 1 });
  });

  it('forgets an entry after its time', async () => {
    const cache = createCatalogCache(1);
    const load = vi.fn(async () => ({ n: 1 }));
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 1_100));
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not remember a failed load', async () => {
    const cache = createCatalogCache(60);
    await expect(cache.get('k', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('k', async () => ({ ok: true }))).toEqual({ ok: true });
  });

  it('loads every time when set to 0 seconds', async () => {
    const cache = createCatalogCache(0);
    const load = vi.fn(async () => ({}));
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
