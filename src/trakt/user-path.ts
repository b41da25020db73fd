// The user a Trakt path names: `me` (the token's user; 401 without a token) or a username, matched
// regardless of case. Another user's private profile is 404 exactly as a username nobody has
// (docs/decisions.md, "Who sees a private profile"); routes of one list pass `owners` to let a list's
// own people reach a private owner's list, access.ts deciding about the list itself.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { profileByUsername, profileOf } from '../core/profile/repository.ts';

export type PathUser = {
  id: string;
  username: string;
  displayName: string;
  avatarUrl: string | null;
  bio: string;
  createdAt: string;
  private: boolean;
  /** The path names the token's own user. */
  self: boolean;
};

/** `owners`: a private profile is answered too (the list's access check decides for the list). */
export async function pathUser(em: EntityManager, actor: Actor | null, id: string, opts: { owners?: boolean } = {}): Promise<PathUser> {
  if (id === 'me' && !actor) throw new ApiError('invalid_token', 'users/me needs an access token (Authorization: Bearer)');
  if (id.length > 100) throw notFound(`User "${id.slice(0, 100)}"`);
  const row = await (id === 'me' ? profileOf(em, actor!.userId, false) : profileByUsername(em, id));
  if (!row) throw notFound(`User "${id}"`);
  const self = row.id === actor?.userId;
  if (!self && !opts.owners && row.profile_privacy !== 'public') throw notFound(`User "${id}"`);
  return {
    id: row.id,
    username: row.username,
    displayName: row.display_name,
    avatarUrl: row.avatar_url,
    bio: row.bio,
    createdAt: new Date(row.created_at).toISOString(),
    private: row.profile_privacy !== 'public',
    self,
  };
}
