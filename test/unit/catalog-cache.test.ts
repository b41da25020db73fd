// The catalog answer cache: shared loads, expiry, failures not remembered, bounded by size, and off at 0
// seconds.
import { describe, expect, it, vi } from 'vitest';
import { createCatalogCache } from '../../src/core/catalog/cache.ts';

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

  it('holds answers up to its size, dropping the least recently used first', async () => {
    // Each answer: key (2 characters) + JSON (1,000 + 10 characters).
    const answer = (n: number) => ({ s: String(n).padStart(1000, 'x') });
    const cache = createCatalogCache(60, 3 * 1012);
    for (let n = 1; n <= 4; n++) await cache.get(`k${n}`, async () => answer(n));
    expect(cache.stats().size).toBe(3);
    const load = vi.fn(async () => answer(1));
    await cache.get('k1', load);
    expect(load).toHaveBeenCalledTimes(1); // k1 was dropped
    await cache.get('k4', load);
    expect(load).toHaveBeenCalledTimes(1); // k4 was kept
    // An answer larger than the whole cache is answered, not kept.
    await cache.get('big', async () => ({ s: 'y'.repeat(5000) }));
    expect(cache.stats().size).toBe(3);
  });

  it('loads every time when set to 0 seconds', async () => {
    const cache = createCatalogCache(0);
    const load = vi.fn(async () => ({}));
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
