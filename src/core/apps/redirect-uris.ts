// Which redirect URIs an app may register (OAuth 2.0 Security BCP, RFC 8252 for native apps).
//
// Matching is exact: an authorization request's `redirect_uri` must equal one registered string
// character for character: no prefix or wildcard matching, no normalisation (case, trailing slash,
// default port, percent-encoding), so what is stored here is the string as given, not a parsed form.
// Exact matching is what makes an open redirector impossible through a registered app.
import { invalidRequest } from '../errors.ts';

const MAX_LENGTH = 2000;
export const MAX_REDIRECT_URIS = 20;
// Loopback hosts as URL's parser spells them: native and CLI apps listen on one of these.
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
// A private-use scheme is a reverse domain name (com.example.app): it has a dot, which also rules out
// javascript:, data:, file:, blob: and other schemes that must never receive a code.
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;
// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

/** Why the URI may not be registered, or null when it may. */
export function redirectUriProblem(value: string): string | null {
  if (value.length === 0 || value.length > MAX_LENGTH) return `must be 1 to ${MAX_LENGTH} characters`;
  if (WHITESPACE_OR_CONTROL.test(value)) return 'must not contain spaces or control characters';
  if (value.includes('#')) return 'must not contain a fragment';
  if (!URL.canParse(value)) return 'must be an absolute URI';
  const url = new URL(value);
  const scheme = url.protocol.slice(0, -1);
  if (url.username || url.password) return 'must not contain credentials';
  if (scheme === 'https') return null;
  if (scheme === 'http') return LOOPBACK_HOSTS.has(url.hostname) ? null : 'may use http only on a loopback host (127.0.0.1, [::1], localhost)';
  if (!PRIVATE_USE_SCHEME.test(scheme)) return 'must use https, http on a loopback host, or a private-use scheme such as com.example.app:/callback';
  if (value.length === scheme.length + 1) return 'must have a path after the scheme';
  return null;
}

/** Checks every URI and drops exact duplicates, keeping the order given. */
export function checkRedirectUris(values: readonly unknown[]): string[] {
  if (values.length === 0) throw invalidRequest('at least one redirect URI is required');
  const unique = [...new Set(values)];
  if (unique.length > MAX_REDIRECT_URIS) throw invalidRequest(`at most ${MAX_REDIRECT_URIS} redirect URIs`);
  return unique.map((value) => {
    if (typeof value !== 'string') throw invalidRequest('redirect URIs must be strings');
    const problem = redirectUriProblem(value);
    // Quoted as JSON so a URI with a newline still makes a one-line message.
    if (problem) throw invalidRequest(`redirect URI ${JSON.stringify(value.slice(0, 200))} ${problem}`);
    return value;
  });
}
