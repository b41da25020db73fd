// Shared steps of the rate-limit tests: many requests at a bounded concurrency, and the header checks.
import { expect } from 'vitest';
import type { Answer } from './http.ts';

/** `n` calls, `width` at a time; returns the answers in order of sending. */
export async function many<T>(n: number, width: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await send(i);
      }
    }),
  );
  return out;
}

export function expectHeaders(a: Answer, limit: number, remaining?: number): void {
  expect(a.headers.get('x-ratelimit-limit')).toBe(String(limit));
  if (remaining !== undefined) expect(a.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(a.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
}
