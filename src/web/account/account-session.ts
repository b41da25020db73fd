// The account pages' side of the browser's session. The session itself is the authorization server's
// (oauth/browser-session.ts): signing in here signs the browser in for approving apps and devices too,
// and signing out ends it for both. Forms carry a CSRF token derived from it; the sign-in and sign-up
// forms, which have no session yet, a double-submitted nonce. Reading and ending the session, and the
// forms' CSRF check, are browser-session.ts's own functions.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { signInBrowser, type SessionDeps } from '../../oauth/browser-session.ts';
import { readCookie } from '../../oauth/cookies.ts';

const LOGIN_COOKIE = 'mts_login';
const PATH = '/account';

function setCookie(res: Response, name: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=${PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

export async function startSession(deps: SessionDeps, req: Request, res: Response, userId: string): Promise<void> {
  await signInBrowser(deps, req, res, userId);
  setCookie(res, LOGIN_COOKIE, '', 0, deps.secure);
}

/** Sign-in forms use a double-submitted nonce (login CSRF): a cookie and the same value in the form. */
export function loginNonce(res: Response, secure: boolean): string {
  const nonce = randomBytes(16).toString('base64url');
  setCookie(res, LOGIN_COOKIE, nonce, 10 * 60, secure);
  return nonce;
}

export function validLoginNonce(req: Request, given: unknown): boolean {
  const cookie = readCookie(req, LOGIN_COOKIE);
  if (typeof given !== 'string' || !cookie) return false;
  const a = Buffer.from(cookie);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
