// What the port answers while the service starts. server.ts claims the port before anything slow
// (opening the database, migrations, the demo catalog import), so a port another process holds stops
// start-up at once; until the application is ready this answers instead of it: /healthz 200 (the
// process is alive: a liveness probe must not kill a long first import), /readyz 503 with the step
// under way, and every other request 503 in the API's envelope with Retry-After, so an early client is
// told to come back rather than refused or left waiting. Every answer closes its connection: the work
// behind the port (PGlite runs on this thread) can hold the event loop for seconds, and a keep-alive
// connection whose idle timer fires late, just as its client sends the next request on it, would be
// reset under that request.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../core/errors.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { Logger } from '../core/log.ts';
import { accessLog } from './access-log.ts';
import { rateLimit } from './rate-limit.ts';
import { sendError } from './envelope.ts';
import { requestId } from './request-id.ts';
import { routeStrictly } from './routing.ts';

/** Seconds a client is asked to wait before trying again. */
const RETRY_AFTER_S = 2;

/**
 * `step`: what start-up is doing now, in a few words (e.g. "applying migrations"). `limits`: the
 * application's own, so a platform request answered here is counted (by address: no token is read yet)
 * and carries the rate-limit headers, as every platform answer does.
 */
export function startingApp(log: Logger, step: () => string, limits: RateLimits): Express {
  const app = express();
  routeStrictly(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId, accessLog(log), (_req, res, next) => {
    res.setHeader('Connection', 'close');
    next();
  });
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', (_req, res) => void res.status(503).setHeader('Retry-After', String(RETRY_AFTER_S)).json({ status: 'starting', step: step() }));
  const starting = () => new ApiError('server_error', `The service is starting (${step()}); retry shortly`, { retry_after: RETRY_AFTER_S }, 503);
  app.use(rateLimit(limits, log), (req: Request, res: Response) => sendError(req, res, starting()));
  // A full bucket answers its 429; anything else raised on the way is still "starting".
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(req, res, err instanceof ApiError ? err : starting()));
  return app;
}
