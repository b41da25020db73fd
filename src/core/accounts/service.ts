// Users: creation, lookup and password checks. Rows are read and written with hand-written SQL; the
// password hash never leaves this module.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../errors.ts';
import { query } from '../db/sql.ts';
import { hashSecret, needsRehash, verifyAgainstDummy, verifySecret } from '../security/argon2.ts';
import { checkAvatarUrl, checkDisplayName, checkPassword, checkUsername, normalizePassword, PASSWORD_MAX } from './rules.ts';

/** A user as stored, without the password hash. */
export type User = {
  id: string;
  username: string;
  display_name: string;
  avatar_url: string | null;
  created_at: Date;
};

export type NewUser = { username: string; password: string; displayName?: string | undefined; avatarUrl?: string | null | undefined };

const USER_COLUMNS = 'id, username, display_name, avatar_url, created_at';
// The driver hands timestamptz over as text (MikroORM sets it up so); the service speaks Date.
type UserRow = Omit<User, 'created_at'> & { created_at: string | Date };
const toUser = (row: UserRow): User => ({ ...row, created_at: new Date(row.created_at) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createUser(em: EntityManager, input: NewUser): Promise<User> {
  const username = checkUsername(input.username);
  const password = checkPassword(input.password);
  const displayName = checkDisplayName(input.displayName, username);
  const avatarUrl = checkAvatarUrl(input.avatarUrl);
  const hash = await hashSecret(password);
  // One statement: the unique index on lower(username) decides a race between two sign-ups.
  const [row] = await query<UserRow>(em, {
    text: `insert into app_user (username, display_name, avatar_url, password_hash) values ($1, $2, $3, $4)
           on conflict ((lower(username))) do nothing
           returning ${USER_COLUMNS}`,
    params: [username, displayName, avatarUrl, hash],
  });
  if (!row) throw new ApiError('conflict', `username "${username}" is taken`);
  return toUser(row);
}

export async function findUserById(em: EntityManager, id: string): Promise<User | null> {
  // Anything that is not a UUID names no user (and would be a type error in PostgreSQL).
  if (!UUID.test(id)) return null;
  const [row] = await query<UserRow>(em, { text: `select ${USER_COLUMNS} from app_user where id = $1`, params: [id] });
  return row ? toUser(row) : null;
}

/** Case-insensitive: "Alice" finds "alice". */
export async function findUserByUsername(em: EntityManager, username: string): Promise<User | null> {
  const [row] = await query<UserRow>(em, { text: `select ${USER_COLUMNS} from app_user where lower(username) = lower($1)`, params: [username] });
  return row ? toUser(row) : null;
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
  const [row] = await query<UserRow & { password_hash: string }>(em, {
    text: `select ${USER_COLUMNS}, password_hash from app_user where lower(username) = lower($1)`,
    params: [username],
  });
  if (!row) return verifyAgainstDummy(candidate).then(() => null);
  if (!(await verifySecret(row.password_hash, candidate))) return null;
  // Hashes made with older parameters are upgraded while the plain password is at hand.
  if (needsRehash(row.password_hash)) {
    await query(em, { text: 'update app_user set password_hash = $2 where id = $1', params: [row.id, await hashSecret(candidate)] });
  }
  const { password_hash: _hash, ...user } = row;
  return toUser(user);
}
