// The platform's 16 OAuth scopes, in the order of the scope table of the platform OpenAPI document, with the plain words a consent screen shows.
// This is the one list: apps' allowed scopes, the authorization server's `scopes_supported` and the
// scope checks on routes all read it. The names are typed with the column that stores them (schema/apps.ts).
import type { Scope } from '../schema/apps.ts';

export const SCOPES = [
  'profile:read',
  'history:read',
  'history:write',
  'lists:read',
  'lists:write',
  'ratings:read',
  'ratings:write',
  'collection:read',
  'collection:write',
  'notifications:read',
  'notifications:write',
  'trophies:read',
  'profile:write',
  'playback:read',
  'playback:write',
  'events:read',
] as const satisfies readonly Scope[];

// ...and the list leaves none of them out.
const _everyScopeListed: Exclude<Scope, (typeof SCOPES)[number]> extends never ? true : false = true;

export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  'profile:read': 'basic profile, title metadata, seasons, episodes, calendar',
  'history:read': 'watch-history reads',
  'history:write': 'log, edit, remove watches',
  'lists:read': 'read lists and list details',
  'lists:write': 'create, edit, delete, populate lists',
  'ratings:read': 'ratings, favourites, watch statuses, title interaction state',
  'ratings:write': 'ratings, favourites, planning, show-status changes',
  'collection:read': 'read collection',
  'collection:write': 'add and remove collection items',
  'notifications:read': 'read notifications, unread counts, preferences',
  'notifications:write': 'mark notifications read, update preferences',
  'trophies:read': 'trophy progress and totals',
  'profile:write': 'profile details and app preferences',
  'playback:read': 'in-progress and Continue Watching state',
  'playback:write': 'playback updates and dismissing progress',
  'events:read': 'playback server-sent events',
};

/**
 * Reserved (docs/decisions.md, Accounts and apps) and never granted to developer apps. It is not one of the 16, so `isScope` is
 * false for it and no app's `allowed_scopes` can hold it; it is named here so callers can say why.
 */
export const RESERVED_SCOPE = 'email:read';

const known: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return known.has(value);
}
