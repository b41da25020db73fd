// The user a Trakt path names: `me` (the token's user; 401 without a token) or a username, matched
// regardless of case. Another user's private profile is 404 exactly as a username nobody has
// (docs/decisions.md, "Who sees a private profile"); routes of one list pass `owners` to let a list's
// own people reach a private owner's list, access.ts deciding about the list itself.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import { db } from '../core/db/query-builder.ts';
import { ApiError, notFound } from '../core/errors.ts';

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

const COLUMNS = ['id', 'username', 'display_name', 'avatar_url', 'bio', 'created_at', 'profile_privacy'] as const;

/** `owners`: a private profile is answered too (the list's access check decides for the list). */
export async function pathUser(em: EntityManager, actor: Actor | null, id: string, opts: { owners?: boolean } = {}): Promise<PathUser> {
  if (id === 'me' && !actor) throw new ApiError('invalid_token', 'users/me needs an access token (Authorization: Bearer)');
  if (id.length > 100) throw notFound(`User "${id.slice(0, 100)}"`);
  const q = db(em).selectFrom('app_user').select(COLUMNS);
  const row = await (id === 'me'
    ? q.where('id', '=', actor!.userId)
    : q.where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(id)])))
  ).executeTakeFirst();
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
