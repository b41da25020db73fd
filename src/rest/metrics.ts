// Prometheus metrics over HTTP: GET /metrics (the registry of core/metrics/registry.ts, in the text
// format), and the request-duration middleware that feeds http_request_duration_seconds.
// /metrics is answered before the pipeline: no request id, no access log line, no rate limit, and the
// bearer authentication of the platform API never sees the metrics token. It reveals operational data
// (traffic per route, pool use), so it needs METRICS_TOKEN as a bearer token, and is off (404) when
// METRICS_TOKEN is unset.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { httpRequestDuration, registry, UNMATCHED_ROUTE } from '../core/metrics/registry.ts';
import { OAUTH_ROUTES } from '../oauth/routes.ts';

const METRICS_PATH = '/metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsEndpoint(token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.setHeader('Cache-Control', 'no-store');
    if (!expected) {
      res.status(404).type('text/plain').send('Not found\n');
      return;
    }
    const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    if (!given || !timingSafeEqual(digest(given), expected)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('A valid metrics bearer token is required\n');
      return;
    }
    try {
      const body = await registry.metrics();
      res.status(200).setHeader('Content-Type', registry.contentType).send(body);
    } catch (err) {
      next(err);
    }
  };
}

const oauthPaths = new Set<string>(Object.values(OAUTH_ROUTES));

/**
 * The route template a request matched, for the `route` label: the facade's and the event stream's
 * label, an Express route's pattern, an OAuth endpoint's path. Raw paths never: ids in them would
 * make one series per id. Everything else is UNMATCHED_ROUTE.
 */
function routeOf(req: Request): { route: string; method: string } {
  if (req.route_label) {
    const space = req.route_label.indexOf(' ');
    return { method: req.route_label.slice(0, space), route: req.route_label.slice(space + 1) };
  }
  const path = req.originalUrl.split('?')[0] ?? '';
  const matched = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof matched === 'string') return { method: req.method, route: `${req.baseUrl}${matched}` };
  if (oauthPaths.has(path)) return { method: req.method, route: path };
  // Procedure names are bounded, but a batch call names several in its path: one label for tRPC.
  if (path.startsWith('/trpc/')) return { method: req.method, route: '/trpc/{procedure}' };
  return { method: req.method, route: UNMATCHED_ROUTE };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** First in the pipeline: observes every request's duration when its response ends (499: the client went away). */
export function requestMetrics(req: Request, res: Response, next: NextFunction): void {
  const end = httpRequestDuration.startTimer();
  let done = false;
  const observe = () => {
    if (done) return;
    done = true;
    const { route, method } = routeOf(req);
    end({ route, method: METHODS.has(method) ? method : 'other', status: String(res.writableFinished ? res.statusCode : 499) });
  };
  res.once('finish', observe);
  res.once('close', observe);
  next();
}
