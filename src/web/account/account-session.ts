// The browser session of the account pages (connected apps): a random token in a cookie sent only to
// /account (httpOnly, SameSite=Lax, a day), naming a session kept on the server (core/accounts/
// sessions.ts), so signing out ends it for good. Forms carry a CSRF token derived from it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNT_SESSION_SECONDS, accountSessionUser, createAccountSession, endAccountSession } from '../../core/accounts/sessions.ts';
import { readCookie } from '../../oauth/cookies.ts';

const SESSION_COOKIE = 'mts_account';
const LOGIN_COOKIE = 'mts_login';
const PATH = '/account';

const sign = (key: string, value: string) => createHmac('sha256', key).update(value).digest('base64url');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function setCookie(res: Response, name: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=${PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

export type AccountSession = { userId: string; token: string; csrf: string };

export async function startSession(em: EntityManager, res: Response, userId: string, secure: boolean): Promise<void> {
  setCookie(res, SESSION_COOKIE, await createAccountSession(em, userId), ACCOUNT_SESSION_SECONDS, secure);
  setCookie(res, LOGIN_COOKIE, '', 0, secure);
}

export async function endSession(em: EntityManager, res: Response, session: AccountSession, secure: boolean): Promise<void> {
  await endAccountSession(em, session.token);
  setCookie(res, SESSION_COOKIE, '', 0, secure);
}

export async function currentSession(em: EntityManager, req: Request, key: string): Promise<AccountSession | undefined> {
  const token = readCookie(req, SESSION_COOKIE);
  // Tokens are 43 base64url characters: anything else is not worth a lookup.
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const userId = await accountSessionUser(em, token);
  return userId ? { userId, token, csrf: sign(key, `csrf:${token}`) } : undefined;
}

/** Sign-in forms use a double-submitted nonce (login CSRF): a cookie and the same value in the form. */
export function loginNonce(res: Response, secure: boolean): string {
  const nonce = randomBytes(16).toString('base64url');
  setCookie(res, LOGIN_COOKIE, nonce, 10 * 60, secure);
  return nonce;
}

export function validLoginNonce(req: Request, given: unknown): boolean {
  const cookie = readCookie(req, LOGIN_COOKIE);
  return typeof given === 'string' && !!cookie && same(cookie, given);
}

export function validCsrf(session: AccountSession, given: unknown): boolean {
  return typeof given === 'string' && same(session.csrf, given);
}
