// Whose library a `/users/{id}/...` read is: `me`, or a username. The signed-in user's own username is
// the same as `me`. Another user's: an unknown username and a private profile are 404 alike (privacy
// does not reveal which names exist, docs/decisions.md "Privacy"); a public profile shows only what its
// public profile page shows (totals, favourites, a few recent watches), and the service has no read of
// another user's whole history, ratings, watchlist or watched titles, so those are 403.
import { userByUsername } from '../core/accounts/repository.ts';
import { publicUser } from '../core/community/repository.ts';
import { ApiError, notFound } from '../core/errors.ts';
import type { TraktCall } from './route.ts';

/** The user id whose library the call reads (always the caller's: see above). */
export async function libraryOwner(call: Pick<TraktCall, 'em' | 'actor'>, id: string): Promise<string> {
  const { actor, em } = call;
  if (id === 'me') {
    if (!actor) throw new ApiError('invalid_token', 'users/me needs an access token (Authorization: Bearer)');
    return actor.userId;
  }
  if (id.length > 100) throw notFound(`User "${id.slice(0, 100)}"`);
  if (actor) {
    const user = await userByUsername(em, id);
    if (user && String(user.id) === actor.userId) return actor.userId;
  }
  if (!(await publicUser(em, id))) throw notFound(`User "${id}"`);
  throw new ApiError('access_denied', 'Only the signed-in user\'s own library can be read here', {}, 403);
}
