// CSRF tokens of the sign-in and consent forms: an HMAC of the interaction id under the provider's
// cookie key. Only a page this service rendered for that interaction can carry it; nothing is stored.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function csrfToken(key: string, uid: string): string {
  return createHmac('sha256', key).update(`csrf:${uid}`).digest('base64url');
}

export function validCsrf(key: string, uid: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(csrfToken(key, uid));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
