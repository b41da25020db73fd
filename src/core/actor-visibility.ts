// The spec's rule for the title route's private fields (user state): they are returned only when the
// token also holds one of the read scopes below, and are null otherwise. Per field, the scope that
// covers it (DESIGN §3): interaction state needs ratings:read, watch history history:read, the user's
// lists lists:read, collection status collection:read.
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
