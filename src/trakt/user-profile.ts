// A user as Trakt's profile shows one (GET /users/{id}, a list's `user`): username, privacy, name and
// Trakt's VIP flags (the service has no VIP: always false), ids {slug}; `extended=full` adds the
// account's facts. Trakt's numeric `ids.trakt` is left out: the service's user ids are UUIDs.
import type { PathUser } from './user-path.ts';

export function traktProfile(u: PathUser, full: boolean) {
  const base = {
    username: u.username,
    private: u.private,
    deleted: false,
    name: u.displayName || null,
    vip: false,
    vip_ep: false,
    director: false,
    ids: { slug: u.username.toLowerCase() },
  };
  if (!full) return base;
  return {
    ...base,
    joined_at: u.createdAt,
    location: null,
    about: u.bio || null,
    gender: null,
    age: null,
    images: { avatar: { full: u.avatarUrl ?? '' } },
    vip_og: false,
    vip_years: 0,
  };
}

/** Whether the query asks for Trakt's `extended=full` (among other comma-separated levels). */
export const wantsFull = (query: Record<string, string | undefined>): boolean => (query.extended ?? '').split(',').includes('full');
