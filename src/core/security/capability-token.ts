// Capability tokens: a random secret that is itself the credential, in a URL a program without OAuth
// fetches or posts to (a calendar feed's, a media-server receiver's). A prefix saying what it is (a
// leaked one is recognised, and a string of another shape is refused before any lookup), then 32 random
// bytes in base64url. Only its SHA-256 digest is stored: 256 random bits need no slow hash, and the
// digest is what a unique index finds the owner by, one lookup whatever was sent.
import { createHash } from 'node:crypto';
import { randomBase64url } from './random.ts';

const TOKEN_BYTES = 32;

export type CapabilityToken = {
  /** A new token: the prefix and the 43 characters of 32 random bytes. */
  make: () => string;
  /** Whether `value` has this token's shape (nothing else is looked up). */
  isShaped: (value: unknown) => value is string;
};

export function capabilityToken(prefix: string): CapabilityToken {
  const pattern = new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`);
  return {
    make: () => `${prefix}${randomBase64url(TOKEN_BYTES)}`,
    isShaped: (value: unknown): value is string => typeof value === 'string' && pattern.test(value),
  };
}

/** What is stored of a token: its SHA-256 digest, base64url. */
export const capabilityHash = (token: string): string => createHash('sha256').update(token).digest('base64url');
