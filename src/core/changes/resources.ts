// The resources the change feed and the snapshot know, and the read scope a token needs to see each
// (the feed is filtered to what the token may read). A module that records a new resource
// adds it here.
export const CHANGE_RESOURCES = {
  history: 'history:read',
  ratings: 'ratings:read',
  favourites: 'ratings:read',
  show_status: 'ratings:read',
  lists: 'lists:read',
  list_items: 'lists:read',
  list_likes: 'lists:read',
  collection: 'collection:read',
  playback: 'playback:read',
  profile: 'profile:read',
  preferences: 'profile:read',
  notifications: 'notifications:read',
  notification_preferences: 'notifications:read',
  trophies: 'trophies:read',
} as const;

export type ChangeResource = keyof typeof CHANGE_RESOURCES;

export function isChangeResource(name: string): name is ChangeResource {
  return Object.hasOwn(CHANGE_RESOURCES, name);
}

/** The resources whose changes a token with these scopes may read. */
export function readableResources(scopes: ReadonlySet<string>): ChangeResource[] {
  return (Object.keys(CHANGE_RESOURCES) as ChangeResource[]).filter((r) => scopes.has(CHANGE_RESOURCES[r]));
}
