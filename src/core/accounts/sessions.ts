// Server-side sessions of the account pages: a random token in the browser, its digest here, so a
// session ends when it says it ends (sign-out deletes it; the old cookie then finds nothing).
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';

export const ACCOUNT_SESSION_SECONDS = 24 * 60 * 60;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Starts a session for the user; returns the token the browser keeps. */
export async function createAccountSession(em: EntityManager, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await query(em, {
    text: `insert into account_session (id, user_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))`,
    params: [digest(token), userId, ACCOUNT_SESSION_SECONDS],
  });
  return token;
}

/** The user of a live session, or null. */
export async function accountSessionUser(em: EntityManager, token: string): Promise<string | null> {
  const [row] = await query<{ user_id: string }>(em, {
    text: `select user_id from account_session where id = $1 and expires_at > now()`,
    params: [digest(token)],
  });
  return row?.user_id ?? null;
}

export async function endAccountSession(em: EntityManager, token: string): Promise<void> {
  await query(em, { text: `delete from account_session where id = $1`, params: [digest(token)] });
}

export async function sweepExpiredAccountSessions(em: EntityManager): Promise<number> {
  return (await query(em, { text: `delete from account_session where expires_at < now() returning 1`, params: [] })).length;
}
