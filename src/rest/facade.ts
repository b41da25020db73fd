// The REST facade: trpc-to-openapi serves a router's procedures at their OpenAPI paths under one base.
// The facade writes tRPC's own error shape; errors are captured in onError and the body is rewritten
// here, in one place, into the API's error envelope (envelope.ts). Unmatched paths fall through to the app's 404.
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOpenApiNodeHttpHandler, type OpenApiRouter } from 'trpc-to-openapi';
import type { Config } from '../config.ts';
import type { CatalogCache } from '../core/catalog/cache.ts';
import type { ApiError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { toApiError } from '../rpc/errors.ts';
import type { Context, SyncCommitHook } from '../rpc/trpc.ts';
import { listProcedures } from '../rpc/router-procedures.ts';
import { errorBody, errorHeaders, PUBLIC_BASE } from './envelope.ts';
import { restProcedure, type Surface } from '../rpc/procedures.ts';
import { hasBody } from './body.ts';
import { streamBody } from './stream-body.ts';
import { restInputTypes } from './input-types.ts';
import { checkBuckets, limitSubject } from './rate-limit.ts';
import { bucketsOf } from '../core/limits/table.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { OpenStream } from '../core/events/live-stream.ts';

export type FacadeDeps = {
  orm: MikroORM;
  config: Config;
  log: Logger;
  catalogCache: CatalogCache;
  limits?: RateLimits | undefined;
  beforeSyncCommit?: SyncCommitHook | undefined;
  /** Opens live event streams (live-events.ts), for the /trpc subscription. */
  openStream?: OpenStream | undefined;
};

/** The procedure middleware's way to count a procedure's own buckets on this request and response. */
function limitCounter(deps: FacadeDeps, req: Request, res: Response): Context['countLimits'] {
  const limits = deps.limits;
  if (!limits?.enabled) return undefined;
  return (ids, operation) => checkBuckets(limits, deps.log, res, bucketsOf(ids, { ...limitSubject(req), operation }));
}

export function createContext(deps: FacadeDeps, req: Request, res: Response, transport: Context['transport']): Context {
  return {
    requestId: req.id,
    transport,
    countLimits: limitCounter(deps, req, res),
    em: deps.orm.em.fork(),
    config: deps.config,
    log: deps.log.child({ request_id: req.id }),
    actor: req.actor ?? null,
    catalogCache: deps.catalogCache,
    headers: req.headers,
    response: { headers: {} },
    beforeSyncCommit: deps.beforeSyncCommit,
    openStream: deps.openStream,
  };
}

type Captured = { ctx?: Context; error?: ApiError };

/** `catalog.search` -> `GET /api/public/v1/catalog/search`, for logs and metrics. */
function routeLabels(router: OpenApiRouter, base: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const { name, meta } of listProcedures(router)) {
    const o = meta?.openapi;
    if (o) labels.set(name, `${o.method} ${base}${o.path}`);
  }
  return labels;
}

export function facade(router: OpenApiRouter, base: string, deps: FacadeDeps) {
  const surface: Surface = base === PUBLIC_BASE ? 'public' : 'platform';
  const captured = new WeakMap<Request, Captured>();
  const labels = routeLabels(router, base);
  const readRestText = restInputTypes(router);
  const handler = createOpenApiNodeHttpHandler<OpenApiRouter, Request, Response>({
    router,
    createContext: ({ req, res }) => {
      const ctx: Context = { ...createContext(deps, req, res, 'rest'), readRestText };
      captured.set(req, { ...captured.get(req), ctx });
      return ctx;
    },
    responseMeta: ({ ctx, errors, paths }) => {
      const c = ctx as Context | undefined;
      if (c && paths?.[0]) c.response.route = labels.get(paths[0]);
      if (errors.length) return { headers: c?.response.headers ?? {} };
      return { status: c?.response.status ?? 200, headers: c?.response.headers ?? {} };
    },
    onError: ({ error, req, path }) => {
      const apiError = toApiError(error);
      if (apiError.status >= 500) deps.log.error({ request_id: req.id, err: error.cause ?? error, procedure: path }, 'procedure failed');
      captured.set(req, { ...captured.get(req), error: apiError });
    },
  });

  return (req: Request, res: Response, next: NextFunction): void => {
    // trpc-to-openapi matches paths in any letter case and with a trailing slash: only a path spelled
    // as a procedure's route reaches it, the rest is the app's 404 (routing.ts).
    if (!restProcedure(surface, req.method, req.path)) return next();
    // A write sent with no body at all (e.g. POST /lists/{id}/like) is an empty JSON object: the facade
    // would otherwise refuse it for its missing content type.
    if (req.method !== 'GET' && req.method !== 'DELETE' && req.body === undefined && !req.headers['content-type'] && !hasBody(req)) {
      req.headers['content-type'] = 'application/json';
      req.body = {};
    }
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    // Swap the facade's error body for the envelope, keeping whatever headers the pipeline set; a
    // procedure that streams its body (ctx.response.stream) has it written in place of the JSON answer.
    res.end = ((...args: unknown[]) => {
      const c = captured.get(req);
      if (c?.ctx?.response.route) req.route_label = c.ctx.response.route;
      if (c?.error) {
        res.statusCode = c.error.status;
        errorHeaders(res, c.error);
        return end(JSON.stringify(errorBody(req, c.error)));
      }
      const stream = c?.ctx?.response.stream;
      if (stream) {
        void streamBody(res, stream, c.ctx!.log, (chunk) => void end(chunk));
        return res;
      }
      return end(...args);
    }) as Response['end'];
    void handler(req, res, () => {
      res.end = end as Response['end'];
      next();
    });
  };
}
