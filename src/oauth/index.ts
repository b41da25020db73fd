// The OAuth module as the HTTP app mounts it: the provider with our storage, pages and response
// shapes; the routes in front of it; and bearer authentication for the platform API.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import { findUserById } from '../core/accounts/service.ts';
import { findApp } from '../core/apps/service.ts';
import { ApiError } from '../core/errors.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { Logger } from '../core/log.ts';
import { isTraktPath, PLATFORM_BASE, TRAKT_BASE } from '../rest/envelope.ts';
import { authorizeCheck } from './authorize-check.ts';
import { actorForToken, bearerToken } from './bearer.ts';
import { clientMetadata } from './clients.ts';
import { deviceReentry } from './device-reentry.ts';
import { interactionRoutes } from './interactions.ts';
import { providerKeys } from './keys.ts';
import { atBaseUrl } from './origin.ts';
import { createProvider } from './provider.ts';
import { shapeResponses } from './shape.ts';
import { endpointShims } from './shims.ts';
import { DISCOVERY_PATH, OAUTH_ROUTES } from './routes.ts';
import { strictRouter } from '../rest/routing.ts';
import { verifyHashedClientSecrets } from './client-secret-hash.ts';

/**
 * `cookieKey`: the provider's current cookie key, which the interaction pages' CSRF tokens and the
 * account website's cookies and form tokens are signed with.
 */
export type OAuth = { provider: Provider; cookieKey: string; router: Router; authenticate: RequestHandler };

const PROVIDER_PATHS = new Set<string>([DISCOVERY_PATH, ...Object.values(OAUTH_ROUTES)]);
// The resume steps of an authorization and of a device confirmation: one segment below their paths.
const RESUME_PATHS = [OAUTH_ROUTES.authorization, OAUTH_ROUTES.code_verification].map((p) => new RegExp(`^${p}/[^/]+$`));

/** A path of the provider's, where a bearer token is no credential of the platform API. */
function isProviderPath(path: string): boolean {
  return PROVIDER_PATHS.has(path) || RESUME_PATHS.some((p) => p.test(path));
}

/**
 * The provider's endpoints as the service serves them, each by method and exact path. The provider's
 * own router folds letter case and a trailing slash, so it may only ever see these spellings: handed
 * `/auth/device/Code` it would answer as the device endpoint, past the shims' bucket and scope check.
 * Every other method or spelling is the app's 404, and so are the provider's endpoints the service
 * does not offer: OpenID Connect discovery (plain OAuth 2.0) and the signing keys (access tokens are
 * opaque, no ID tokens are issued).
 */
function providerDispatch(callback: (req: Request, res: Response) => void): Router {
  const r = strictRouter();
  const { authorization, token, revocation, device_authorization, code_verification } = OAUTH_ROUTES;
  r.get([DISCOVERY_PATH, authorization, `${authorization}/:uid`, code_verification, `${code_verification}/:uid`], callback);
  r.post([authorization, token, revocation, device_authorization, code_verification], callback);
  r.options([DISCOVERY_PATH, token, revocation, device_authorization], callback);
  return r;
}

export async function createOAuth(deps: { orm: MikroORM; config: Config; log: Logger; limits: RateLimits }): Promise<OAuth> {
  const { orm } = deps;
  const provider = await createProvider({
    ...deps,
    findClient: async (clientId) => {
      const app = await findApp(orm.em.fork(), clientId);
      return app ? clientMetadata(app) : undefined;
    },
    accountExists: async (id) => Boolean(await findUserById(orm.em.fork(), id)),
  });
  verifyHashedClientSecrets(provider);
  shapeResponses(provider, orm);
  const callback = atBaseUrl(provider.callback() as (req: Request, res: Response) => void, deps.config.baseUrl);
  const { cookieKeys } = await providerKeys(orm);

  const router = strictRouter();
  const secure = deps.config.baseUrl.startsWith('https:');
  const signups = deps.config.signups === 'open';
  router.use(interactionRoutes({ provider, orm, csrfKey: cookieKeys[0]!, limits: deps.limits, log: deps.log, secure, signups }));
  router.get(OAUTH_ROUTES.authorization, authorizeCheck(orm, provider.issuer));
  router.post(OAUTH_ROUTES.authorization, authorizeCheck(orm, provider.issuer));
  router.use(endpointShims({ orm, limits: deps.limits, log: deps.log }, callback));
  router.use(deviceReentry({ provider, key: cookieKeys[0]!, secure }));
  router.use(providerDispatch(callback));

  const authenticate: RequestHandler = async (req, _res, next) => {
    try {
      const onPlatform = req.path.startsWith(`${PLATFORM_BASE}/`) || req.path.startsWith('/trpc/') || isTraktPath(req.path);
      const header = req.headers.authorization;
      // Trakt's OAuth endpoints (trakt/routes/oauth.ts) take no bearer token either: a client refreshing
      // may well send the access token that has just expired.
      const traktOAuth = req.path.startsWith(`${TRAKT_BASE}/oauth/`);
      if (!onPlatform || isProviderPath(req.path) || traktOAuth || !header || header.startsWith('Basic ')) return next();
      const token = bearerToken(header);
      const actor = token ? await actorForToken(provider, orm, token) : null;
      if (!actor) req.authFailure = new ApiError('invalid_token', 'The access token is missing, invalid, expired or revoked');
      else req.actor = actor;
    } catch (err) {
      // The token could not be checked (the database is away): the request still goes through the rate
      // limiter, so its error answer carries the limit headers like every platform response, then fails.
      req.authFailure = err as Error;
    }
    next();
  };
  return { provider, cookieKey: cookieKeys[0]!, router, authenticate };
}
