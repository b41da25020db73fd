// A user as Trakt shows one: `{username, private, name, vip, vip_ep, ids: {slug}, ...}`. Usernames are
// the service's; the slug is the username in lower case.
export type UserFacts = { username: string; displayName: string | null; avatarUrl: string | null; createdAt: string; private: boolean };

export function traktUser(u: UserFacts) {
  return {
    username: u.username,
    private: u.private,
    name: u.displayName || null,
    vip: false,
    vip_ep: false,
    ids: { slug: u.username.toLowerCase() },
    joined_at: u.createdAt,
    location: null,
    about: null,
    gender: null,
    age: null,
    images: { avatar: { full: u.avatarUrl ?? '' } },
  };
}
