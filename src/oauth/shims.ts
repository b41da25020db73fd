// In front of the provider's endpoints: JSON bodies (these endpoints take JSON or a form, as the platform OpenAPI document says; the body reader
// has made them flat strings) become the form the provider reads; `/auth/device/token` and `/auth/refresh` become token requests with their grant
// type; unknown or inactive apps get `unauthorized_client`; and the raw `scope` is checked against
// the app's allowed scopes (the provider silently drops scopes it does not know), an omitted one
// meaning all of them.
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../rest/routing.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import { findApp, type App } from '../core/apps/service.ts';
import { isScope } from '../core/apps/scopes.ts';
import { ApiError } from '../core/errors.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { limitById, type Bucket, type LimitId } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { checkBuckets, clientIp } from '../rest/rate-limit.ts';
import { DEVICE_TOKEN_PATH, OAUTH_ROUTES, REFRESH_PATH } from './routes.ts';

type Handler = (req: Request, res: Response) => void;

const GRANT_OF: Record<string, string> = {
  [DEVICE_TOKEN_PATH]: 'urn:ietf:params:oauth:grant-type:device_code',
  [REFRESH_PATH]: 'refresh_token',
};
const REQUIRED: Record<string, string[]> = {
  [DEVICE_TOKEN_PATH]: ['client_id', 'device_code'],
  [REFRESH_PATH]: ['client_id', 'refresh_token'],
  [OAUTH_ROUTES.device_authorization]: ['client_id'],
};

/** The body as the provider's form parser would have made it: the body reader made a JSON body flat (rest/body.ts). */
const formOf = (body: unknown): Record<string, string> => ({ ...((body ?? {}) as Record<string, string>) });

/** client_id from the body, or from HTTP Basic credentials. */
function clientIdOf(req: Request, form: Record<string, string>): string | undefined {
  if (form.client_id) return form.client_id;
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const id = decoded.split(':')[0];
    // RFC 6749 §2.3.1 form-encodes the id; a malformed one is bad client credentials, not a 500.
    try {
      return id ? decodeURIComponent(id) : undefined;
    } catch {
      throw new ApiError('invalid_client', 'Malformed HTTP Basic client credentials');
    }
  }
  return undefined;
}

/** The scope to ask the provider for: the request's, checked, or the app's allowed scopes when omitted. */
export function checkedScope(app: App, raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return app.allowed_scopes.join(' ');
  const wanted = raw.split(' ').filter(Boolean);
  const refused = wanted.filter((s) => !isScope(s) || !app.allowed_scopes.includes(s));
  if (refused.length) throw new ApiError('invalid_scope', `Scope not allowed for this app: ${refused.join(' ')}`);
  return [...new Set(wanted)].join(' ');
}

export async function activeApp(orm: MikroORM, clientId: string | undefined): Promise<App> {
  const app = clientId ? await findApp(orm.em.fork(), clientId) : null;
  if (!app || !app.active) throw new ApiError('unauthorized_client', clientId ? 'The app is unknown or inactive' : 'client_id is required');
  return app;
}

// Each endpoint's own limit, per address.
const PER_PATH: Record<string, LimitId> = {
  [OAUTH_ROUTES.device_authorization]: 'device-code',
  [DEVICE_TOKEN_PATH]: 'device-token',
  [REFRESH_PATH]: 'refresh',
  [OAUTH_ROUTES.token]: 'token-admission',
};
// Limits that need the body: token and revoke requests are counted per client and address.
const PER_CLIENT: Record<string, LimitId> = { [OAUTH_ROUTES.token]: 'token-client', [OAUTH_ROUTES.revocation]: 'revoke' };
// A refresh or a device poll sent to /oauth/token counts against the bucket of its own endpoint
// (/auth/refresh, /auth/device/token; per address), so the general token endpoint is no way around them.
const PER_GRANT: Record<string, LimitId> = { refresh_token: 'refresh', 'urn:ietf:params:oauth:grant-type:device_code': 'device-token' };

/** The endpoint's own bucket, counted for every request to it (per address). */
function pathBuckets(req: Request): Bucket[] {
  const id = PER_PATH[req.path];
  return id ? [{ limit: limitById(id), key: clientIp(req) }] : [];
}

/** The buckets counted once the body names the client and the grant type. */
function bodyBuckets(req: Request, form: Record<string, string>): Bucket[] {
  const buckets: Bucket[] = [];
  const perClient = PER_CLIENT[req.path];
  if (perClient) buckets.push({ limit: limitById(perClient), key: `${clientIdOf(req, form) ?? '-'}:${clientIp(req)}` });
  const perGrant = req.path === OAUTH_ROUTES.token && form.grant_type ? PER_GRANT[form.grant_type] : undefined;
  if (perGrant) buckets.push({ limit: limitById(perGrant), key: clientIp(req) });
  return buckets;
}

export function endpointShims(deps: { orm: MikroORM; limits: RateLimits; log: Logger }, provider: Handler): Router {
  const { orm } = deps;
  const r = strictRouter();
  const paths = [OAUTH_ROUTES.token, OAUTH_ROUTES.device_authorization, DEVICE_TOKEN_PATH, REFRESH_PATH, OAUTH_ROUTES.revocation];
  r.post(paths, async (req: Request, res: Response, next: NextFunction) => {
    try {
      await checkBuckets(deps.limits, deps.log, res, pathBuckets(req));
      const form = formOf(req.body);
      for (const field of REQUIRED[req.path] ?? []) {
        if (!form[field]) throw new ApiError('invalid_request', `${field} is required`);
      }
      const buckets = bodyBuckets(req, form);
      if (buckets.length) await checkBuckets(deps.limits, deps.log, res, buckets);
      const grantType = GRANT_OF[req.path];
      if (grantType) form.grant_type = grantType;
      // Every endpoint, revocation included: an unknown or inactive app is unauthorized_client (docs/decisions.md, OAuth).
      const app = await activeApp(orm, clientIdOf(req, form));
      if (req.path === OAUTH_ROUTES.device_authorization) form.scope = checkedScope(app, form.scope);
      // A token request that names a scope (a refresh narrowing its grant) gets it checked as well: the
      // provider would drop an unknown one from some grants without a word.
      else if ((grantType || req.path === OAUTH_ROUTES.token) && form.scope?.trim()) form.scope = checkedScope(app, form.scope);
      req.headers['content-type'] = 'application/x-www-form-urlencoded';
      req.body = form;
      if (grantType) req.url = OAUTH_ROUTES.token;
      provider(req, res);
    } catch (err) {
      next(err);
    }
  });
  return r;
}
