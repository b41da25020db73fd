// The first-party web app (packages/web, served at `/`) as an OAuth app. The service registers it itself
// at every start (server.ts), so there is no operator step and a changed BASE_URL moves its redirect URI
// at the next start: an official public app (no secret: a page cannot keep one; PKCE S256, which the
// authorization server requires of every app) allowed all 16 scopes, with one redirect URI on the
// service's own origin. Its client id is fixed and named here once; the web app sends the same string.
// It has no owner, so it never appears among anyone's developer apps (owned.ts finds only owned apps);
// its users revoke it at /account/connected-apps like any other, and the admin CLI can deactivate it.
// Its consent is given by being official and first-party: the authorization server grants it what it
// asks for without a consent page (oauth/first-party-grant.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { upsertOfficialPublicApp } from './repository.ts';
import { checkAllowedScopes, checkAppName } from './rules.ts';

export const FIRST_PARTY_CLIENT_ID = 'media-tracking-web';
const FIRST_PARTY_APP_NAME = 'Media Tracking (web)';
/** Where the web app receives its authorization code: a page of the web app itself. */
const CALLBACK_PATH = '/auth/callback';

/** The web app's one redirect URI: exactly BASE_URL (no trailing slash) followed by the callback path. */
export const firstPartyRedirectUri = (baseUrl: string): string => `${baseUrl}${CALLBACK_PATH}`;

/**
 * Registers the web app, or brings the stored one to its name, redirect URI and scopes (its `active`
 * flag is kept: an operator who deactivated it keeps it off). Idempotent, and safe when several
 * instances start at once (one statement). True when anything was written.
 *
 * The redirect URI is not put through the developer apps' rule (redirect-uris.ts): it is the service's
 * own origin, already checked as BASE_URL (config.ts), and a plain-http BASE_URL on a private network,
 * which that rule refuses for apps elsewhere, sends the sign-in form itself over the same connection.
 */
export async function registerFirstPartyApp(em: EntityManager, baseUrl: string): Promise<boolean> {
  return upsertOfficialPublicApp(em, {
    clientId: FIRST_PARTY_CLIENT_ID,
    name: checkAppName(FIRST_PARTY_APP_NAME),
    redirectUris: [firstPartyRedirectUri(baseUrl)],
    // All 16: the web app is the service's own client.
    scopes: checkAllowedScopes(undefined),
  });
}
