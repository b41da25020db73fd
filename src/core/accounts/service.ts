// Users: creation, lookup and password checks. Rows are read and written through repository.ts; the
// password hash never leaves this module.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../errors.ts';
import { hashSecret, needsRehash, verifyAgainstDummy, verifySecret } from '../security/argon2.ts';
import { credentialsByUsername, insertUser, setPasswordHash, userById, userByUsername } from './repository.ts';
import { checkAvatarUrl, checkDisplayName, checkPassword, checkUsername, normalizePassword, PASSWORD_MAX } from './rules.ts';

/** A user as stored, without the password hash: id, username, display_name, avatar_url, created_at (a Date). */
export type User = NonNullable<Awaited<ReturnType<typeof userById>>>;

export type NewUser = { username: string; password: string; displayName?: string | undefined; avatarUrl?: string | null | undefined };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createUser(em: EntityManager, input: NewUser): Promise<User> {
  const username = checkUsername(input.username);
  const password = checkPassword(input.password);
  const displayName = checkDisplayName(input.displayName, username);
  const avatarUrl = checkAvatarUrl(input.avatarUrl);
  const hash = await hashSecret(password);
  // One statement: the unique index on lower(username) decides a race between two sign-ups.
  const user = await insertUser(em, { username, displayName, avatarUrl, passwordHash: hash });
  if (!user) throw new ApiError('conflict', `username "${username}" is taken`);
  return user;
}

export async function findUserById(em: EntityManager, id: string): Promise<User | null> {
  // Anything that is not a UUID names no user (and would be a type error in PostgreSQL).
  if (!UUID.test(id)) return null;
  return (await userById(em, id)) ?? null;
}

/** Case-insensitive: "Alice" finds "alice". */
export async function findUserByUsername(em: EntityManager, username: string): Promise<User | null> {
  return (await userByUsername(em, username)) ?? null;
}

/**
 * The user when the password is theirs, else null. An unknown username costs the same argon2 work as a
 * wrong password, so timing does not reveal which usernames exist.
 */
export async function verifyPassword(em: EntityManager, username: string, password: string): Promise<User | null> {
  if (typeof username !== 'string' || typeof password !== 'string') return null;
  const candidate = normalizePassword(password);
  // Longer than any stored password can be: no argon2 work for it.
  if ([...candidate].length > PASSWORD_MAX) return null;
  const row = await credentialsByUsername(em, username);
  if (!row) return verifyAgainstDummy(candidate).then(() => null);
  if (!(await verifySecret(row.password_hash, candidate))) return null;
  // Hashes made with older parameters are upgraded while the plain password is at hand.
  if (needsRehash(row.password_hash)) {
    await setPasswordHash(em, row.id, await hashSecret(candidate));
  }
  const { password_hash: _hash, ...user } = row;
  return user;
}
