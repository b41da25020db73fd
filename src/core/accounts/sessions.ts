// Server-side sessions of the account pages: a random token in the browser, its digest here, so a
// session ends when it says it ends (sign-out deletes it; the old cookie then finds nothing).
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteAccountSession, deleteExpiredAccountSessions, insertAccountSession, liveAccountSessionUser } from './repository.ts';

export const ACCOUNT_SESSION_SECONDS = 24 * 60 * 60;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Starts a session for the user; returns the token the browser keeps. */
export async function createAccountSession(em: EntityManager, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertAccountSession(em, digest(token), userId, ACCOUNT_SESSION_SECONDS);
  return token;
}

/** The user of a live session, or null. */
export async function accountSessionUser(em: EntityManager, token: string): Promise<string | null> {
  return liveAccountSessionUser(em, digest(token));
}

export async function endAccountSession(em: EntityManager, token: string): Promise<void> {
  await deleteAccountSession(em, digest(token));
}

export async function sweepExpiredAccountSessions(em: EntityManager): Promise<number> {
  return deleteExpiredAccountSessions(em);
}
