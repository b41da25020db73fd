// The browser session of the account pages (connected apps): a signed cookie naming the user, valid for
// a day, httpOnly and SameSite=Lax, sent only to /account. Forms carry a CSRF token derived from it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'mts_account';
const LOGIN_COOKIE = 'mts_login';
const SESSION_SECONDS = 24 * 60 * 60;
const PATH = '/account';

const sign = (key: string, value: string) => createHmac('sha256', key).update(value).digest('base64url');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

function setCookie(res: Response, name: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${name}=${encodeURIComponent(value)}; Path=${PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

export type AccountSession = { userId: string; csrf: string };

export function startSession(res: Response, key: string, userId: string, secure: boolean): void {
  const value = `${userId}.${Math.floor(Date.now() / 1000) + SESSION_SECONDS}`;
  setCookie(res, SESSION_COOKIE, `${value}.${sign(key, value)}`, SESSION_SECONDS, secure);
  setCookie(res, LOGIN_COOKIE, '', 0, secure);
}

export function endSession(res: Response, secure: boolean): void {
  setCookie(res, SESSION_COOKIE, '', 0, secure);
}

export function currentSession(req: Request, key: string): AccountSession | undefined {
  const raw = readCookie(req, SESSION_COOKIE);
  const parts = raw?.split('.');
  if (!parts || parts.length !== 3) return undefined;
  const [userId, exp, mac] = parts as [string, string, string];
  if (!same(mac, sign(key, `${userId}.${exp}`)) || Number(exp) < Date.now() / 1000) return undefined;
  return { userId, csrf: sign(key, `csrf:${raw}`) };
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
