// If-None-Match evaluated as an origin server evaluates it (RFC 9110 13.1.2): weak comparison, lists,
// `*`; a Cache-Control of the request plays no part.
import { describe, expect, it } from 'vitest';
import { matchesIfNoneMatch } from '../../src/rest/if-none-match.ts';

const TAG = '"8GBxrGGPB-Pfn6gODyGckeL9zg3"';

describe('matchesIfNoneMatch', () => {
  it.each([
    [TAG, true],
    [`W/${TAG}`, true],
    [`"other", ${TAG}`, true],
    [`"other",${TAG} , "more"`, true],
    ['*', true],
    [' * ', true],
    ['"other"', false],
    ['8GBxrGGPB-Pfn6gODyGckeL9zg3', false],
    [`${TAG.slice(0, -2)}"`, false],
    ['', false],
    [undefined, false],
  ])('%s: %s', (header, matches) => {
    expect(matchesIfNoneMatch(header, TAG)).toBe(matches);
  });
});
