// The Trakt-compatible facade: Trakt API v2's paths under /trakt (and at the root of TRAKT_API_PORT's
// listener), over the same procedures as the platform API. The app's pipeline has already run for these
// paths (request id, bearer authentication, the general rate-limit buckets, the body reader); this
// router adds Trakt's own conventions: the `trakt-api-key` header, `trakt-api-version: 2`, 412 for a
// body that is not JSON, 401 for a route that needs a user, then the route's handler, and Trakt's
// error answers (errors.ts).
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { ApiError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { OAuth } from '../oauth/index.ts';
import type { Context } from '../rpc/trpc.ts';
import { TRAKT_BASE } from '../rest/envelope.ts';
import { strictRouter } from '../rest/routing.ts';
import { checkApiKey } from './api-key.ts';
import { sendTraktError } from './errors.ts';
import { traktDocument } from './openapi.ts';
import { proceduresFor } from './procedures.ts';
import type { TraktCall, TraktRoute } from './route.ts';
import type { TraktFacade } from '../rest/app.ts';
import { TRAKT_ROUTES } from './routes/index.ts';

export type TraktFacadeDeps = {
  orm: MikroORM;
  config: Config;
  log: Logger;
  /** The authorization server (the OAuth endpoints in Trakt's dialect go through its provider). */
  oauth: OAuth;
  limits: RateLimits;
  /** A procedure context for a request (the REST facade's, so buckets and headers are the same). */
  contextFor: (req: Request, res: Response) => Context;
};


function precondition(req: Request): void {
  const version = req.headers['trakt-api-version'];
  if (version !== undefined && version !== '2') throw new ApiError('invalid_request', 'trakt-api-version must be 2');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  if (hasBody && type !== 'application/json') throw new ApiError('invalid_request', 'Send the body as application/json', {}, 412);
}

function handlerOf(route: TraktRoute, deps: TraktFacadeDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      precondition(req);
      const ctx = deps.contextFor(req, res);
      if (!route.keyless) await checkApiKey(ctx.em, header(req, 'trakt-api-key'), req.actor);
      if (route.auth === 'required' && !req.actor) throw new ApiError('invalid_token', 'This call needs an access token (Authorization: Bearer)');
      if (route.scope && req.actor && !req.actor.scopes.has(route.scope)) {
        throw new ApiError('insufficient_scope', `This call needs the ${route.scope} scope`, { required_scope: route.scope });
      }
      req.route_label = `${route.method} ${TRAKT_BASE}${route.path}`;
      if (route.limits?.length && ctx.countLimits) await ctx.countLimits(route.limits, req.route_label);
      const call: TraktCall = {
        req,
        res,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, string | undefined>,
        body: req.body ?? {},
        actor: req.actor ?? null,
        em: ctx.em,
        config: deps.config,
        log: ctx.log,
        procedures: proceduresFor(ctx),
        proceduresWith: (headers) => proceduresFor(ctx, headers),
        services: { orm: deps.orm, oauth: deps.oauth, limits: deps.limits },
      };
      const answer = await route.handle(call);
      for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
      const status = answer.status ?? (answer.body === undefined ? 204 : 200);
      if (answer.body === undefined) res.status(status).end();
      else res.status(status).type('application/json').send(JSON.stringify(answer.body));
    } catch (err) {
      next(err);
    }
  };
}

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function traktFacade(deps: TraktFacadeDeps): TraktFacade {
  // Routes are written with the base in full (the router is not mounted below a path), so every route
  // the app serves is one exact spelling in one router tree. A path under the base that no route takes,
  // and every error, reach the app's 404 and error handler, which answer through sendError on these paths.
  const router = strictRouter();
  const doc = traktDocument(TRAKT_ROUTES, deps.config.baseUrl);
  router.get(`${TRAKT_BASE}/openapi.json`, (_req, res) => void res.json(doc));
  for (const route of TRAKT_ROUTES) {
    const handler = handlerOf(route, deps);
    const path = `${TRAKT_BASE}${route.path}`;
    if (route.method === 'GET') router.get(path, handler);
    else if (route.method === 'POST') router.post(path, handler);
    else if (route.method === 'PUT') router.put(path, handler);
    else router.delete(path, handler);
  }
  return { router, sendError: sendTraktError };
}
