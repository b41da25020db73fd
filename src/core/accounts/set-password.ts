// An operator sets a user's password (the user forgot it, or it leaked). Every browser session signed
// in with the old password ends in the same transaction: the authorization server's sessions, which are
// the browsers' sessions for the account pages and for approving apps alike.
//
// The user's OAuth grants and tokens are kept. They are not password-derived: each is a delegation the
// user approved for one app, listed on /account/connected-apps and revocable there one by one. Revoking
// them all would sign out every TV, phone and scrobbler for the common case (a forgotten password); after
// a leak, the user signs in with the new password and disconnects what they do not recognise.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { hashSecret } from '../security/argon2.ts';
import { deleteProviderSessionsOfUser } from '../tokens/repository.ts';
import { setPasswordHash, userByUsername } from './repository.ts';
import { checkPassword } from './rules.ts';
import type { User } from './service.ts';

/** Case-insensitive username; the password follows the rules of createUser. Unknown user: not_found. */
export async function setUserPassword(em: EntityManager, username: string, password: string): Promise<User> {
  const normalized = checkPassword(password);
  // Hashed before the transaction: argon2's CPU time need hold no connection (figures: docs/performance.md,
  // 'argon2id hash cost').
  const hash = await hashSecret(normalized);
  return transaction(em, async (tx) => {
    const user = await userByUsername(tx, username);
    if (!user) throw notFound(`user "${username}"`);
    await setPasswordHash(tx, user.id, hash);
    await deleteProviderSessionsOfUser(tx, user.id);
    return user;
  });
}
