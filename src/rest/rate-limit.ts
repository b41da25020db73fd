// Rate limiting in the HTTP pipeline: every bucket of the limits table that applies to a platform or
// public request is checked after authentication and before the body is read, and the most
// constraining one is reported on the response (errors included). A 429 is the envelope with
// `rate_limited` and Retry-After. The limiter failing never fails the request.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import { mostConstraining, rateLimitHeaders, type Decision, type RateLimits } from '../core/limits/limiter.ts';
import { bucketsFor, tokenBucketId, type Bucket } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';

function surfaceOf(path: string): { surface: 'platform' | 'public'; rel: string } | undefined {
  if (path.startsWith(`${PUBLIC_BASE}/`)) return { surface: 'public', rel: path.slice(PUBLIC_BASE.length) };
  if (path.startsWith(`${PLATFORM_BASE}/`)) return { surface: 'platform', rel: path.slice(PLATFORM_BASE.length) };
  // First-party clients' tRPC calls count against the same general buckets.
  if (path.startsWith('/trpc/')) return { surface: 'platform', rel: path };
  return undefined;
}

/** Keeps the most constraining decision of the request so far and writes its headers. */
export function recordDecision(res: Response, d: Decision | undefined): Decision | undefined {
  const best = mostConstraining(res.locals.rateLimit as Decision | undefined, d);
  if (best) {
    res.locals.rateLimit = best;
    for (const [name, value] of Object.entries(rateLimitHeaders(best))) res.setHeader(name, value);
  }
  return best;
}

export function rateLimited(d: Decision): ApiError {
  return new ApiError('rate_limited', `Too many requests: ${d.limit} allowed (${d.bucket}); retry in ${d.retryAfter} s`, { retry_after: d.retryAfter });
}

/** Checks extra buckets later in a request (e.g. per client once the body names it). */
export async function checkBuckets(limits: RateLimits, log: Logger, res: Response, buckets: Bucket[]): Promise<void> {
  let d: Decision | undefined;
  try {
    d = await limits.check(buckets);
  } catch (err) {
    log.error({ err }, 'rate limiter failed: request let through');
    return;
  }
  recordDecision(res, d);
  if (d && !d.allowed) throw rateLimited(d);
}

export function rateLimit(limits: RateLimits, log: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const where = surfaceOf(req.path);
    if (!where || !limits.enabled) return next();
    const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    const buckets = bucketsFor({
      surface: where.surface,
      method: req.method,
      path: where.rel,
      ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      actor: req.actor ?? undefined,
      tokenId: token && req.actor ? tokenBucketId(token) : undefined,
    });
    checkBuckets(limits, log, res, buckets).then(() => next(), next);
  };
}
