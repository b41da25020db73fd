// Users as stored: the app_user statements of accounts/.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

/** A user's columns as the service hands them out (the password hash never leaves this module). */
const USER_COLUMNS = ['id', 'username', 'display_name', 'avatar_url', 'created_at'] as const;

/** The user, or undefined when the username is taken (in any case: the unique index on lower(username) decides). */
export function insertUser(em: EntityManager, user: { username: string; displayName: string; avatarUrl: string | null; passwordHash: string }) {
  return db(em)
    .insertInto('app_user')
    .values({ username: user.username, display_name: user.displayName, avatar_url: user.avatarUrl, password_hash: user.passwordHash })
    .onConflict((oc) => oc.expression(expressionBuilder<Tables, 'app_user'>().fn('lower', ['username'])).doNothing())
    .returning(USER_COLUMNS)
    .executeTakeFirst();
}

export function userById(em: EntityManager, id: string) {
  return db(em).selectFrom('app_user').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Case-insensitive. */
export function userByUsername(em: EntityManager, username: string) {
  return db(em)
    .selectFrom('app_user')
    .select(USER_COLUMNS)
    .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
    .executeTakeFirst();
}

/** Case-insensitive; with the password hash, for the password check only. */
export function credentialsByUsername(em: EntityManager, username: string) {
  return db(em)
    .selectFrom('app_user')
    .select([...USER_COLUMNS, 'password_hash'])
    .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
    .executeTakeFirst();
}

export async function setPasswordHash(em: EntityManager, userId: string, passwordHash: string): Promise<void> {
  await db(em).updateTable('app_user').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}
