// What a username, display name, avatar URL and password may be. Each check returns the value to store
// or throws ApiError('invalid_request') saying what is wrong, in words an operator or a sign-up page can show.
import { invalidRequest } from '../errors.ts';

// Letters, digits, `_`, `.`, `-`: safe in URLs and @mentions without escaping. The migration's check
// constraint holds the same pattern.
const USERNAME = /^[A-Za-z0-9_.-]{3,32}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
const DISPLAY_NAME_MAX = 64;
const AVATAR_URL_MAX = 2048;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function checkUsername(value: unknown): string {
  if (typeof value !== 'string' || !USERNAME.test(value)) {
    throw invalidRequest('username must be 3 to 32 characters of letters, digits, "_", "." or "-"');
  }
  return value;
}

/**
 * Passwords are normalised to NFKC (NIST SP 800-63B) so the same password typed on another keyboard or
 * system still matches, then counted in characters (code points), not bytes. Any character may be used;
 * there are no composition rules, only the length.
 */
export function normalizePassword(value: string): string {
  return value.normalize('NFKC');
}

export function checkPassword(value: unknown): string {
  if (typeof value !== 'string') throw invalidRequest('password is required');
  const normalized = normalizePassword(value);
  const length = [...normalized].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw invalidRequest(`password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return normalized;
}

/** Defaults to the username; trimmed; 1 to 64 characters without control characters. */
export function checkDisplayName(value: unknown, username: string): string {
  if (value === undefined || value === null) return username;
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!trimmed || [...trimmed].length > DISPLAY_NAME_MAX || CONTROL.test(trimmed)) {
    throw invalidRequest(`display name must be 1 to ${DISPLAY_NAME_MAX} characters without control characters`);
  }
  return trimmed;
}

/**
 * The URL's canonical form, stored and shown instead of what was sent: the WHATWG URL serialization
 * (`new URL(x).href`: spaces, quotes, `<`, `>` and backticks percent-encoded, the host lower-cased,
 * tabs and line breaks dropped), with `'` percent-encoded too (the serialization keeps it in a path),
 * so no character of the value can end an HTML attribute or open a tag, however a client quotes it.
 * Idempotent: the canonical form of a canonical form is itself (the avatar migration relies on it).
 */
function canonicalUrl(value: string): string {
  return new URL(value).href.replaceAll("'", '%27');
}

/**
 * An absolute https URL (clients load it as an image on secure pages), without a user name or password,
 * stored in its canonical form (canonicalUrl) of at most 2048 characters.
 */
export function checkAvatarUrl(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !URL.canParse(value)) throw invalidRequest(`avatar URL must be an absolute https URL of at most ${AVATAR_URL_MAX} characters`);
  const url = new URL(value);
  if (url.protocol !== 'https:') throw invalidRequest(`avatar URL must use https, not ${url.protocol.slice(0, 40)}`);
  if (url.username || url.password) throw invalidRequest('avatar URL must not carry a user name or password');
  const canonical = canonicalUrl(value);
  if (canonical.length > AVATAR_URL_MAX) throw invalidRequest(`avatar URL must be at most ${AVATAR_URL_MAX} characters once percent-encoded (this one has ${canonical.length})`);
  return canonical;
}
