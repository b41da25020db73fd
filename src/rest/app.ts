// The HTTP application: the request pipeline in order, then the routes, then 404 and the
// error envelope. Bearer authentication and rate limiting plug in at the marked points.
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { CatalogCache } from '../core/catalog/cache.ts';
import { ApiError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { appRouter, platformRouter, publicRouter } from '../rpc/app-router.ts';
import { toApiError } from '../rpc/errors.ts';
import { accessLog } from './access-log.ts';
import { readBody } from './body.ts';
import { refuseNul } from './nul-guard.ts';
import { readTrpcQueryInput } from './trpc-query-input.ts';
import { cors } from './cors.ts';
import { docsPage } from './docs-page.ts';
import { isTraktPath, PLATFORM_BASE, PUBLIC_BASE, sendError, TRPC_BASE } from './envelope.ts';
import { createContext, facade } from './facade.ts';
import { health } from './health.ts';
import { platformDocument, publicDocument } from './openapi.ts';
import { rateLimit } from './rate-limit.ts';
import { requestId } from './request-id.ts';
import { noRoute, refuseVariantPath, routeStrictly } from './routing.ts';
import { metricsEndpoint, requestMetrics } from './metrics.ts';
import type { Drain } from './drain.ts';
import { EVENTS_PATH, playbackEvents } from './sse.ts';
import { calendarFeed } from './calendar-feed.ts';
import { CALENDAR_FEED_PATH } from '../core/calendar-feed/service.ts';
import type { EventBus } from '../core/events/bus.ts';
import { liveEvents } from './live-events.ts';
import { mediaServerHooks } from './media-server-hooks.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { WriteHealth } from '../core/db/write-health.ts';
import type { Context, SyncCommitHook } from '../rpc/trpc.ts';
import './types.ts';

export type AppDeps = {
  orm: MikroORM;
  /** Whether the database can write, for /readyz (core/db/write-health.ts). */
  writes: WriteHealth;
  config: Config;
  log: Logger;
  catalogCache: CatalogCache;
  /** The authorization server: its routes, and bearer authentication of platform requests. */
  oauth?: { router: RequestHandler; authenticate: RequestHandler };
  /** The website: the account pages, sign-up, developer apps and imports (src/web/). */
  web?: RequestHandler;
  /** Counts requests in the buckets of the limits table. */
  limits?: RateLimits;
  /** Live playback events for GET /playback/events (server-sent events). */
  events?: EventBus;
  /** Graceful shutdown: closes keep-alive connections and ends event streams once draining (server.ts). */
  drain?: Drain;
  /** A step of bulk sync writes before their commit (server.ts ServerDeps). */
  beforeSyncCommit?: SyncCommitHook | undefined;
  /**
   * The Trakt-compatible facade (src/trakt/), made with the way this app makes a procedure context for a
   * request: mounted at its base, and the one that answers errors (404 included) on its paths.
   */
  trakt?: (contextFor: (req: Request, res: Response) => Context) => TraktFacade;
};

/** What the Trakt-compatible facade gives the app (src/trakt/index.ts). */
export type TraktFacade = { router: RequestHandler; sendError: (req: Request, res: Response, err: unknown) => void };

const pass: RequestHandler = (_req, _res, next) => next();

export function createApp(deps: AppDeps): Express {
  const { config, log } = deps;
  const app = express();
  routeStrictly(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // X-Forwarded-For is believed only from the proxies named in TRUST_PROXY.
  app.set('trust proxy', config.trustProxy.length ? config.trustProxy : false);
  // Before the pipeline: shutdown's Connection: close, GET /metrics (its own bearer token, no request
  // id, no log line, no rate limit), and the duration of every other request (rest/metrics.ts).
  app.use(deps.drain?.middleware ?? pass, metricsEndpoint(config.metricsToken), requestMetrics);
  // 1. request id, 2. access log, 3. CORS, 4. bearer authentication, 5. rate limits (headers on every
  // response from here on, errors included), 6. body (size limits, deadline, JSON depth, parse) and the
  // JSON input of /trpc GET calls, 7. no NUL character anywhere in the request. Between 5 and 6, a path
  // spelled in a way no route is (routing.ts) is a 404; every matcher after it is exact.
  app.use(requestId, accessLog(log), cors);
  app.use(deps.oauth?.authenticate ?? pass);
  app.use(deps.limits ? rateLimit(deps.limits, log) : pass);
  app.use((req: Request, _res: Response, next: NextFunction) => next(req.authFailure));
  app.use(refuseVariantPath, readBody, readTrpcQueryInput, refuseNul);
  if (deps.oauth) app.use(deps.oauth.router);
  if (deps.web) app.use(deps.web);

  app.use(health(deps.orm, deps.writes));
  app.use(docsPage());

  const publicDoc = publicDocument(publicRouter, config.baseUrl);
  const platformDoc = platformDocument(platformRouter, config.baseUrl);
  app.get(`${PUBLIC_BASE}/openapi.json`, (_req, res) => void res.json(publicDoc));
  app.get(`${PLATFORM_BASE}/openapi.json`, (_req, res) => void res.json(platformDoc));

  // Live events: one opener for the REST stream and the /trpc subscription (one watch of their tokens).
  const openStream = deps.events ? liveEvents({ orm: deps.orm, log, events: deps.events, drain: deps.drain }) : undefined;
  const procedureDeps = { ...deps, openStream };
  // Server-sent events are an Express route (the facade has no subscriptions), before the facade.
  if (openStream) app.get(`${PLATFORM_BASE}${EVENTS_PATH}`, playbackEvents({ orm: deps.orm, log, openStream, limits: deps.limits }));
  // The calendar feed: iCalendar text, which the facade cannot answer (rest/calendar-feed.ts).
  app.get(`${PLATFORM_BASE}${CALENDAR_FEED_PATH}`, calendarFeed({ orm: deps.orm, log, baseUrl: config.baseUrl, limits: deps.limits }));
  // Media servers' webhooks (Plex, Jellyfin, Emby) for the users' receivers: their own body reading and bucket.
  app.use(mediaServerHooks({ orm: deps.orm, log, limits: deps.limits }));
  const trakt = deps.trakt?.((req, res) => createContext(procedureDeps, req, res, 'trpc'));
  if (trakt) app.use(trakt.router);
  app.use(PUBLIC_BASE, facade(publicRouter, PUBLIC_BASE, procedureDeps));
  app.use(PLATFORM_BASE, facade(platformRouter, PLATFORM_BASE, procedureDeps));

  // First-party clients: the same procedures over tRPC's own protocol.
  app.use(
    TRPC_BASE,
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req, res }) => createContext(procedureDeps, req, res, 'trpc'),
      onError: ({ error, req }) => {
        const apiError = toApiError(error);
        // 503: a live event stream ended for its client to reconnect (shutdown, lost delivery), or could not open.
        if (apiError.status >= 500) log[apiError.status === 503 ? 'warn' : 'error']({ request_id: req.id, err: error.cause ?? error }, 'procedure failed');
      },
    }),
  );

  app.use((req: Request, res: Response) => {
    if (trakt && isTraktPath(req.path)) return trakt.sendError(req, res, noRoute(req));
    sendError(req, res, noRoute(req));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Errors Express raises itself (e.g. a malformed percent-encoding in the path) carry a 4xx status.
    const status = (err as { status?: unknown }).status;
    const apiError =
      typeof status === 'number' && status >= 400 && status < 500 && !(err instanceof ApiError)
        ? new ApiError(status === 404 ? 'not_found' : 'invalid_request', (err as Error).message)
        : toApiError(err);
    if (apiError.status >= 500) log.error({ request_id: req.id, err }, 'request failed');
    if (trakt && isTraktPath(req.path)) return trakt.sendError(req, res, apiError);
    sendError(req, res, apiError);
  });

  return app;
}
