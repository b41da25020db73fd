// Where the OAuth endpoints live: the provider is mounted at the service root (issuer = BASE_URL, no
// trailing slash) and its routes carry the platform prefix, so its RFC 8414 metadata is served at
// /.well-known/oauth-authorization-server with the right endpoint URLs.
import { PLATFORM_BASE } from '../rest/envelope.ts';

export const OAUTH_ROUTES = {
  authorization: `${PLATFORM_BASE}/oauth/authorize`,
  token: `${PLATFORM_BASE}/oauth/token`,
  revocation: `${PLATFORM_BASE}/oauth/revoke`,
  device_authorization: `${PLATFORM_BASE}/auth/device/code`,
  code_verification: `${PLATFORM_BASE}/auth/device`,
  jwks: `${PLATFORM_BASE}/oauth/jwks`,
  // Features that are turned off still need paths of their own.
  userinfo: `${PLATFORM_BASE}/oauth/userinfo`,
  end_session: `${PLATFORM_BASE}/oauth/session/end`,
  introspection: `${PLATFORM_BASE}/oauth/introspect`,
  registration: `${PLATFORM_BASE}/oauth/register`,
  pushed_authorization_request: `${PLATFORM_BASE}/oauth/par`,
  backchannel_authentication: `${PLATFORM_BASE}/oauth/backchannel`,
  challenge: `${PLATFORM_BASE}/oauth/challenge`,
  credential: `${PLATFORM_BASE}/oauth/credential`,
} as const;

/** RFC 8414 metadata, at the service root. */
export const DISCOVERY_PATH = '/.well-known/oauth-authorization-server';

/** The JSON endpoints of the platform OpenAPI document that are shims in front of the provider's token route. */
export const DEVICE_TOKEN_PATH = `${PLATFORM_BASE}/auth/device/token`;
export const REFRESH_PATH = `${PLATFORM_BASE}/auth/refresh`;

/** Sign-in and consent pages of an authorization in progress. */
export const INTERACTION_BASE = '/oauth/interaction';

const OAUTH_PATHS = new Set<string>([DISCOVERY_PATH, ...Object.values(OAUTH_ROUTES), DEVICE_TOKEN_PATH, REFRESH_PATH]);
// The resume steps of an authorization and of a device confirmation: one segment below their paths.
const OAUTH_RESUME_PATHS = [OAUTH_ROUTES.authorization, OAUTH_ROUTES.code_verification].map((p) => new RegExp(`^${p}/[^/]+$`));

/**
 * A path of the provider's or of the shims in front of it: below the platform base, yet no procedure
 * of the JSON API. Its parameters are OAuth's, flat strings (RFC 6749), whether sent as a form or as JSON.
 */
export function isOAuthEndpoint(path: string): boolean {
  return OAUTH_PATHS.has(path) || OAUTH_RESUME_PATHS.some((p) => p.test(path));
}
