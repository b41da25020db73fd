// The title route's private-field rule, for the library module to apply.
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/core/actor.ts';
import { visiblePrivateFields } from '../../src/core/actor-visibility.ts';

const actor = (...scopes: string[]): Actor => ({ userId: 'u', clientId: 'c', official: false, scopes: new Set(scopes) });

describe('visiblePrivateFields', () => {
  it('hides every private field from a token with only profile:read', () => {
    expect(visiblePrivateFields(actor('profile:read'))).toEqual({ interaction: false, watchHistory: false, userLists: false, collectionStatus: false });
  });

  it('shows each field with its read scope', () => {
    expect(visiblePrivateFields(actor('profile:read', 'ratings:read'))).toMatchObject({ interaction: true, watchHistory: false });
    expect(visiblePrivateFields(actor('profile:read', 'history:read')).watchHistory).toBe(true);
    expect(visiblePrivateFields(actor('profile:read', 'lists:read')).userLists).toBe(true);
    expect(visiblePrivateFields(actor('profile:read', 'collection:read')).collectionStatus).toBe(true);
  });

  it('hides everything without an actor', () => {
    expect(Object.values(visiblePrivateFields(null))).toEqual([false, false, false, false]);
  });
});
