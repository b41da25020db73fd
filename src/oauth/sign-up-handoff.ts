// Sign-up in the middle of an authorization. The authorization's sign-in page links to
// /account/sign-up?return=/oauth/interaction/{uid}; the only return accepted is exactly such a path on
// this origin (anything else is dropped and the new user lands on /account: no open redirect). After the
// account is made, the browser goes back to that interaction carrying a handoff cookie scoped to the
// interaction's path: an HMAC of the interaction id, the new user and an expiry, for ten minutes. The
// interaction's own page, which reads its interaction through the provider's `interactionDetails` (so
// only the browser that started it gets this far), takes the cookie once and finishes the login step
// for that user. A return link sent to someone else brings them to an interaction their browser did
// not start: refused there like any other step, and nobody is signed in.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { readCookie } from './cookies.ts';
import { INTERACTION_BASE } from './routes.ts';

/** The sign-up page of the account website. */
export const SIGN_UP_PATH = '/account/sign-up';

/** Where a sign-in page links to sign up, returning to `returnTo` afterwards; undefined when sign-ups are closed. */
export function signUpLink(open: boolean, returnTo?: string): string | undefined {
  if (!open) return undefined;
  return returnTo ? `${SIGN_UP_PATH}?return=${encodeURIComponent(returnTo)}` : SIGN_UP_PATH;
}

const RETURN_PATH = new RegExp(`^${INTERACTION_BASE}/[A-Za-z0-9_-]{1,64}$`);
const COOKIE = 'mts_signed_up';
const SECONDS = 10 * 60;

/** The return path when it is an interaction path of this service, else undefined. */
export function safeReturnPath(value: unknown): string | undefined {
  return typeof value === 'string' && RETURN_PATH.test(value) ? value : undefined;
}

export const interactionPath = (uid: string) => `${INTERACTION_BASE}/${uid}`;

const mac = (key: string, uid: string, userId: string, exp: number) => createHmac('sha256', key).update(`signed-up:${uid}:${userId}:${exp}`).digest('base64url');

function setCookie(res: Response, path: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${COOKIE}=${value}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

/** Gives the browser the handoff to the interaction `returnPath` (a safeReturnPath) names. */
export function handOffSignUp(res: Response, key: string, returnPath: string, userId: string, secure: boolean): void {
  const uid = returnPath.slice(INTERACTION_BASE.length + 1);
  const exp = Math.floor(Date.now() / 1000) + SECONDS;
  setCookie(res, returnPath, `${userId}.${exp}.${mac(key, uid, userId, exp)}`, SECONDS, secure);
}

/** The user who just signed up for interaction `uid` in this browser, once: the cookie is cleared. */
export function takeSignUpHandoff(req: Request, res: Response, key: string, uid: string, secure: boolean): string | undefined {
  const value = readCookie(req, COOKIE);
  if (!value) return undefined;
  setCookie(res, interactionPath(uid), '', 0, secure);
  const [userId = '', expText = '', given = ''] = value.split('.');
  const exp = Number(expText);
  if (!Number.isInteger(exp) || exp < Math.floor(Date.now() / 1000)) return undefined;
  const expected = Buffer.from(mac(key, uid, userId, exp));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? userId : undefined;
}
