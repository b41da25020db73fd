// The authorization server: node oidc-provider, mounted at the service root. Plain OAuth 2.0 (no
// OpenID Connect: no userinfo, logout or dev interactions), the platform's 16 scopes (core/apps/scopes.ts), PKCE S256 for every
// client (a confidential app through the Trakt facade aside: pkce.ts), rotating refresh tokens, and the device flow. Clients are the apps of the `app` table; the
// first-party web app among them is granted without a consent page (first-party-grant.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import { FIRST_PARTY_CLIENT_ID } from '../core/apps/first-party.ts';
import { SCOPES } from '../core/apps/scopes.ts';
import type { Logger } from '../core/log.ts';
import { createAdapterClass } from './adapter.ts';
import { loadExistingGrant } from './first-party-grant.ts';
import { providerKeys } from './keys.ts';
import { INTERACTION_BASE, OAUTH_ROUTES } from './routes.ts';
import { devicePages } from './pages/device.ts';
import { pkceRequired } from './pkce.ts';
import { renderErrorPage } from './pages/error.ts';

const ACCESS_TOKEN_TTL = 60 * 60;
const REFRESH_TOKEN_TTL = 30 * 24 * 60 * 60;
const GRANT_TTL = 365 * 24 * 60 * 60;
export const DEVICE_CODE_TTL = 10 * 60;
/** The browser's session, for the whole site (browser-session.ts): a day, renewed by the provider's own pages. */
export const SESSION_TTL = 24 * 60 * 60;

/**
 * How long a new refresh token of `clientId` lives, given when its chain began (`iiat`, kept through
 * rotations). Every app: 30 days from each rotation. The first-party web app keeps its refresh token in
 * page memory only, so it needs one no longer than a page stays open, and one taken from the page by a
 * script is worth no more than the browser's session: a day from the sign-in, which rotation does not
 * extend (what oidc-provider's own default does for public web clients).
 */
export function refreshTokenTtl(clientId: string, chainStart: number | undefined): number {
  if (clientId !== FIRST_PARTY_CLIENT_ID) return REFRESH_TOKEN_TTL;
  const now = Math.floor(Date.now() / 1000);
  return Math.max(1, (chainStart ?? now) + SESSION_TTL - now);
}

/** The options of the provider's long-lived cookies, its session's among them. */
export const longCookie = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax', signed: true, secure }) as const;

export type ProviderDeps = {
  orm: MikroORM;
  config: Config;
  log: Logger;
  /** Client metadata of an active app, or undefined for an unknown or inactive one. */
  findClient(clientId: string): Promise<Record<string, unknown> | undefined>;
  accountExists(accountId: string): Promise<boolean>;
};

export async function createProvider(deps: ProviderDeps): Promise<Provider> {
  const keys = await providerKeys(deps.orm);
  const configuration: Configuration = {
    adapter: createAdapterClass(deps.orm, deps.findClient),
    clients: [],
    async findAccount(_ctx, sub) {
      if (!(await deps.accountExists(sub))) return undefined;
      return { accountId: sub, claims: async () => ({ sub }) };
    },
    scopes: [...SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    // Required for every request but a confidential app's through the Trakt facade (its clients send none): pkce.ts.
    pkce: { required: pkceRequired },
    routes: OAUTH_ROUTES,
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      // Not in the contract (the platform OpenAPI document has no such endpoint): an authorization pushed there would skip the checks in front of the authorization endpoint.
      pushedAuthorizationRequests: { enabled: false },
      deviceFlow: { enabled: true, charset: 'base-20', mask: '****-****', ...devicePages },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL,
      AuthorizationCode: 60,
      DeviceCode: DEVICE_CODE_TTL,
      RefreshToken: (_ctx, token, client) => refreshTokenTtl(client.clientId, token.iiat),
      Grant: GRANT_TTL,
      Interaction: 60 * 60,
      Session: SESSION_TTL,
    },
    // Every grant gets a refresh token, without `offline_access`, and it outlives the browser session.
    issueRefreshToken: async () => true,
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    // The first-party web app's grant needs no consent page (first-party-grant.ts); every other app's is the provider's own.
    loadExistingGrant: loadExistingGrant(deps.orm),
    allowOmittingSingleRegisteredRedirectUri: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_post', 'client_secret_basic'],
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `${deps.config.baseUrl}${INTERACTION_BASE}/${interaction.uid}` },
    cookies: {
      keys: keys.cookieKeys,
      long: longCookie(deps.config.baseUrl.startsWith('https:')),
      short: { httpOnly: true, sameSite: 'lax', signed: true, secure: deps.config.baseUrl.startsWith('https:') },
    },
    jwks: { keys: [keys.signingKey as never] },
    renderError: renderErrorPage,
  };
  const provider = new Provider(deps.config.baseUrl, configuration);
  // The service is the provider's trusted proxy: it states the public origin (BASE_URL) on every request (origin.ts).
  provider.proxy = true;
  return provider;
}
