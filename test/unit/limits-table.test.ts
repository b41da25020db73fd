// Each bucket of the limits table has an id of its own: limitById returns the first row of an id, so a
// second row with the same id (two features naming their buckets alike) would never be counted.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits/table.ts';

describe('the limits table', () => {
  it('names each bucket once', () => {
    const ids = LIMITS.map((l) => l.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});
