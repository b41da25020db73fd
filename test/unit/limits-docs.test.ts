// The README's rate-limit table is the limits table (regenerate with `npm run docs:limits`).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeWithLimits } from '../../src/rest/limits-docs.ts';

describe('README rate limits', () => {
  it('match the limits table in code', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    expect(readme, 'README is out of date: run npm run docs:limits').toBe(readmeWithLimits(readme));
  });
});
