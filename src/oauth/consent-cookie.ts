// The browser-bound secret of a code flow's consent form. The consent form posts to
// `POST /oauth/authorize` (the consent decision in the platform OpenAPI document), where the provider's interaction cookie (scoped to the interaction's own
// path) is not sent. So the consent page, served only to the browser that cookie identifies, sets a
// random secret in a cookie of its own, scoped to /oauth/authorize and named after the interaction, and
// the form's token is an HMAC of the interaction id and that secret. A page loaded in another browser, or
// a form posted from elsewhere, cannot present both. Nothing is stored on the server.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { readCookie } from './cookies.ts';
import { OAUTH_ROUTES } from './routes.ts';

type Details = InstanceType<Provider['Interaction']>;

const cookieName = (uid: string) => `mts_consent_${uid}`;
const tokenOf = (key: string, uid: string, secret: string) => createHmac('sha256', key).update(`consent:${uid}:${secret}`).digest('base64url');

function setCookie(res: Response, uid: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${cookieName(uid)}=${value}; Path=${OAUTH_ROUTES.authorization}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

/** Sets the secret for this interaction's consent form (as long as the interaction lives) and returns the form token. */
export function consentCookieToken(res: Response, key: string, d: Details, secure: boolean): string {
  const secret = randomBytes(24).toString('base64url');
  setCookie(res, d.uid, secret, Math.max(1, d.exp - Math.floor(Date.now() / 1000)), secure);
  return tokenOf(key, d.uid, secret);
}

export function validConsentToken(req: Request, key: string, uid: string, token: unknown): boolean {
  const secret = readCookie(req, cookieName(uid));
  if (!secret || typeof token !== 'string') return false;
  const expected = Buffer.from(tokenOf(key, uid, secret));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function clearConsentCookie(res: Response, uid: string, secure: boolean): void {
  setCookie(res, uid, '', 0, secure);
}
