// Trakt's OAuth endpoints, answered by the service's authorization server (oidc-provider) in process:
// each request is checked and counted as the platform's own JSON shims check and count it (the app
// active, the scope the app's, the same rate-limit buckets), rewritten into the provider's form and
// sent to the provider's endpoint (oauth-provider-call.ts); its answer is told in Trakt's shapes
// (oauth-answers.ts). No token is issued, read or revoked anywhere but in the provider. Trakt's clients
// send client_id (and client_secret) in the JSON body, not the trakt-api-key header: every route is keyless.
import { ApiError } from '../../core/errors.ts';
import type { App } from '../../core/apps/service.ts';
import { OAUTH_ROUTES } from '../../oauth/routes.ts';
import { activeApp, checkedScope } from '../../oauth/shims.ts';
import { devicePollAnswer, providerRefusal, traktTokens } from '../oauth-answers.ts';
import { countClient, countEndpoint } from '../oauth-limits.ts';
import { VIA_TRAKT } from '../../oauth/pkce.ts';
import { askProvider } from '../oauth-provider-call.ts';
import type { TraktCall, TraktRoute } from '../route.ts';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const GRANTS = new Set(['authorization_code', 'refresh_token']);

/** A string field of the body: absent (or null) is undefined, anything but a string a 400. */
function field(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError('invalid_request', `${name} must be a string`);
  return value;
}

function required(body: unknown, name: string): string {
  const value = field(body, name);
  if (value === undefined) throw new ApiError('invalid_request', `${name} is required`);
  return value;
}

/** The active app the body names; an unknown or inactive one is Trakt's 401 invalid_client. */
async function appOf(call: TraktCall, clientId: string): Promise<App> {
  try {
    return await activeApp(call.services.orm, clientId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unauthorized_client') throw new ApiError('invalid_client', err.message);
    throw err;
  }
}

/**
 * The client's credentials for the provider. Trakt's clients always send a client_secret (the
 * `trakt.tv` package makes no authenticated call without one), so a public app, which has none, is
 * sent without it: what a client says in its place proves nothing, and the provider would refuse a
 * secret from a client registered without one. A confidential app's secret goes to the provider,
 * which verifies it.
 */
function credentials(app: App, body: unknown): Record<string, string> {
  const secret = field(body, 'client_secret');
  return app.confidential && secret !== undefined ? { client_id: app.client_id, client_secret: secret } : { client_id: app.client_id };
}

const ask = (call: TraktCall, path: string, form: Record<string, string>) =>
  askProvider(call.services.oauth.provider, call.config.baseUrl, call.req, call.res, path, form);

const limitDeps = (call: TraktCall) => ({ limits: call.services.limits, log: call.log });

export const oauthRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/oauth/authorize',
    summary: 'Sends the browser to the service\'s authorization endpoint (sign-in and consent), which returns to redirect_uri with a code',
    tag: 'OAuth',
    auth: 'none',
    keyless: true,
    statuses: [302],
    async handle({ query, config }) {
      // The authorization endpoint checks everything (the app, the redirect URI, the scope, which an
      // omitted one makes the app's allowed scopes) and shows its own pages; VIA_TRAKT lets a
      // confidential app's request go without PKCE, as Trakt's clients send none (src/oauth/pkce.ts).
      const target = new URL(`${config.baseUrl}${OAUTH_ROUTES.authorization}`);
      target.searchParams.set('response_type', query.response_type ?? 'code');
      for (const name of ['client_id', 'redirect_uri', 'state'] as const) {
        const value = query[name];
        if (value !== undefined) target.searchParams.set(name, value);
      }
      // Trakt's `prompt=login` asks the user to sign in again; `signup` has no counterpart here.
      if (query.prompt === 'login') target.searchParams.set('prompt', 'login');
      target.searchParams.set(VIA_TRAKT.name, VIA_TRAKT.value);
      return { status: 302, headers: { Location: target.toString() } };
    },
  },
  {
    method: 'POST',
    path: '/oauth/device/code',
    summary: 'Starts the device flow: a device_code to poll with and a user_code for the user to enter at verification_url',
    tag: 'OAuth',
    auth: 'none',
    keyless: true,
    statuses: [400],
    async handle(call) {
      await countEndpoint(limitDeps(call), call.req, call.res, 'device-code');
      const app = await appOf(call, required(call.body, 'client_id'));
      // Trakt has no scopes: the device asks for every scope the app is allowed.
      const form = { ...credentials(app, call.body), scope: checkedScope(app, undefined) };
      const a = await ask(call, OAUTH_ROUTES.device_authorization, form);
      if (a.status !== 200) return providerRefusal(a);
      const b = a.body;
      return {
        body: {
          device_code: String(b.device_code),
          user_code: String(b.user_code),
          verification_url: String(b.verification_uri),
          expires_in: Number(b.expires_in),
          interval: Number(b.interval),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/oauth/device/token',
    summary: 'Polls for the device\'s tokens: 400 pending, 404 invalid code, 409 already used, 410 expired, 418 denied, 429 slow down',
    tag: 'OAuth',
    auth: 'none',
    keyless: true,
    statuses: [400, 409, 410, 418],
    async handle(call) {
      await countEndpoint(limitDeps(call), call.req, call.res, 'device-token');
      const clientId = required(call.body, 'client_id');
      const code = required(call.body, 'code');
      const app = await appOf(call, clientId);
      const a = await ask(call, OAUTH_ROUTES.token, { ...credentials(app, call.body), grant_type: DEVICE_GRANT, device_code: code });
      return devicePollAnswer(a);
    },
  },
  {
    method: 'POST',
    path: '/oauth/token',
    summary: 'Exchanges an authorization code (grant_type authorization_code) or a refresh token (refresh_token) for tokens; the refresh token rotates',
    tag: 'OAuth',
    auth: 'none',
    keyless: true,
    statuses: [400],
    async handle(call) {
      const deps = limitDeps(call);
      await countEndpoint(deps, call.req, call.res, 'token');
      const grantType = field(call.body, 'grant_type');
      await countClient(deps, call.req, call.res, 'token', field(call.body, 'client_id'), grantType);
      if (!grantType || !GRANTS.has(grantType)) {
        throw new ApiError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
      }
      const app = await appOf(call, required(call.body, 'client_id'));
      const form: Record<string, string> = { ...credentials(app, call.body), grant_type: grantType };
      if (grantType === 'authorization_code') {
        form.code = required(call.body, 'code');
        const redirectUri = field(call.body, 'redirect_uri');
        if (redirectUri !== undefined) form.redirect_uri = redirectUri;
      } else {
        form.refresh_token = required(call.body, 'refresh_token');
      }
      const a = await ask(call, OAUTH_ROUTES.token, form);
      return a.status === 200 ? { body: traktTokens(a) } : providerRefusal(a);
    },
  },
  {
    method: 'POST',
    path: '/oauth/revoke',
    summary: 'Revokes an access token (RFC 7009: an unknown token is no error)',
    tag: 'OAuth',
    auth: 'none',
    keyless: true,
    statuses: [400],
    async handle(call) {
      await countClient(limitDeps(call), call.req, call.res, 'revoke', field(call.body, 'client_id'));
      const app = await appOf(call, required(call.body, 'client_id'));
      const token = required(call.body, 'token');
      const a = await ask(call, OAUTH_ROUTES.revocation, { ...credentials(app, call.body), token });
      return a.status === 200 ? { status: 200 } : providerRefusal(a);
    },
  },
];
