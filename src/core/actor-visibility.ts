// The rule for the title route's private fields (user state; docs/decisions.md, Titles, seasons, calendar): they are returned only when the
// token also holds one of the read scopes below, and are null otherwise. Per field, the scope that
// covers it: interaction state needs ratings:read, watch history history:read, the user's lists
// lists:read, collection status collection:read. The profile home and the community statistics follow
// the same rule (visibleProfileParts): profile:read opens the route, each part needs its own read scope.
import type { Actor } from './actor.ts';

export const PRIVATE_FIELD_SCOPES = {
  interaction: 'ratings:read',
  watchHistory: 'history:read',
  userLists: 'lists:read',
  collectionStatus: 'collection:read',
} as const;

export type PrivateField = keyof typeof PRIVATE_FIELD_SCOPES;

/** Which private fields of the title detail this actor may see. */
export function visiblePrivateFields(actor: Actor | null): Record<PrivateField, boolean> {
  const has = (scope: string) => Boolean(actor?.scopes.has(scope));
  return {
    interaction: has(PRIVATE_FIELD_SCOPES.interaction),
    watchHistory: has(PRIVATE_FIELD_SCOPES.watchHistory),
    userLists: has(PRIVATE_FIELD_SCOPES.userLists),
    collectionStatus: has(PRIVATE_FIELD_SCOPES.collectionStatus),
  };
}

const PROFILE_PART_SCOPES = {
  /** The profile home's lists. */
  lists: 'lists:read',
  /** The profile home's recent watches; the statistics computed from watches (streak, month, genres). */
  history: 'history:read',
  /** The statistics computed from ratings (monthReviews). */
  ratings: 'ratings:read',
} as const;

export type ProfilePart = keyof typeof PROFILE_PART_SCOPES;

/** Which parts of the profile home and community statistics this actor may see (empty or zero otherwise). */
export function visibleProfileParts(actor: Actor): Record<ProfilePart, boolean> {
  return {
    lists: actor.scopes.has(PROFILE_PART_SCOPES.lists),
    history: actor.scopes.has(PROFILE_PART_SCOPES.history),
    ratings: actor.scopes.has(PROFILE_PART_SCOPES.ratings),
  };
}
