// The calendar feed's capability token: 32 random bytes, base64url, behind a `cal_` prefix (a leaked
// one says what it is, and a string of another shape is refused before any lookup). Only its SHA-256
// digest is stored: a high-entropy random token needs no slow hash, and the digest is what the unique
// index finds the feed by.
import { createHash } from 'node:crypto';
import { randomBase64url } from '../security/random.ts';

const PREFIX = 'cal_';
const TOKEN_BYTES = 32;
/** `cal_` and the 43 characters of 32 bytes in base64url (no padding). */
const TOKEN_PATTERN = /^cal_[A-Za-z0-9_-]{43}$/;

export function newFeedToken(): string {
  return `${PREFIX}${randomBase64url(TOKEN_BYTES)}`;
}

/** Whether `value` has a feed token's shape (nothing else is looked up). */
export function isFeedToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

export function feedTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
