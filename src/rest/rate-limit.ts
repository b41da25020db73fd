// Rate limiting in the HTTP pipeline: the general buckets of the limits table (reads, writes, per app,
// unauthenticated) are checked for every platform request after authentication and before the body is
// read, whatever the request reaches, so every platform response carries the headers (errors
// included). A procedure's own buckets are counted by the procedure middleware (rpc/rate-limit.ts),
// and Express-only routes count theirs with checkBuckets. The most constraining decision of the request
// is reported. A 429 is the envelope with `rate_limited` and Retry-After. The limiter failing never
// fails the request.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import { mostConstraining, rateLimitHeaders, type Decision, type RateLimits } from '../core/limits/limiter.ts';
import { generalBuckets, tokenBucketId, type Bucket, type LimitSubject } from '../core/limits/table.ts';
import { trpcProcedures } from '../rpc/procedures.ts';
import type { Logger } from '../core/log.ts';
import { isTraktPath, isTrpcPath, PLATFORM_BASE, TRPC_BASE } from './envelope.ts';

/**
 * The general buckets of a platform request: REST calls count one request, a /trpc call one per
 * platform procedure it names (a batch names several; the public API's procedures have only their own
 * buckets, whichever transport calls them), and a request to the Trakt-compatible facade one. Reads are
 * GET requests, which on /trpc are the queries.
 */
function generalCalls(path: string): number {
  if (path.startsWith(`${PLATFORM_BASE}/`) || isTraktPath(path)) return 1;
  if (!isTrpcPath(path)) return 0;
  const procedures = trpcProcedures(path.slice(TRPC_BASE.length));
  return procedures.length === 0 ? 1 : procedures.filter((p) => p?.surface !== 'public').length;
}

/** Keeps the most constraining decision of the request so far and writes its headers. */
function recordDecision(res: Response, d: Decision | undefined): Decision | undefined {
  const best = mostConstraining(res.locals.rateLimit as Decision | undefined, d);
  if (best) {
    res.locals.rateLimit = best;
    for (const [name, value] of Object.entries(rateLimitHeaders(best))) res.setHeader(name, value);
  }
  return best;
}

/** The envelope's 429 for a refusing decision, with `retry_after` (sent as Retry-After). */
export function rateLimited(d: Decision): ApiError {
  return new ApiError('rate_limited', `Too many requests: ${d.limit} allowed (${d.bucket}); retry in ${d.retryAfter} s`, { retry_after: d.retryAfter });
}

/** Counts a request in some buckets; the limiter failing lets the request through (logged). */
async function count(limits: RateLimits, log: Logger, buckets: Bucket[], onRefused?: () => Promise<void>): Promise<Decision | undefined> {
  try {
    const d = await limits.check(buckets);
    if (d && !d.allowed) await onRefused?.();
    return d;
  } catch (err) {
    log.error({ err }, 'rate limiter failed: request let through');
    return undefined;
  }
}

function report(res: Response, d: Decision | undefined): void {
  recordDecision(res, d);
  if (d && !d.allowed) throw rateLimited(d);
}

/**
 * Counts a request in a procedure's or a route's own buckets, after the pipeline counted the general
 * ones. When these refuse the call, the call's share of the general buckets is given back, so a
 * refused call spends nothing anywhere (one share per call: the other calls of a /trpc batch ran).
 */
export async function checkBuckets(limits: RateLimits, log: Logger, res: Response, buckets: Bucket[]): Promise<void> {
  const general = (res.locals.rateLimitGeneral ?? []) as Bucket[];
  report(res, await count(limits, log, buckets, () => limits.refund(general.map(({ cost: _cost, ...share }) => share))));
}

/** The pipeline's check of the general buckets; remembered so a later refusal can give a share back. */
async function checkGeneral(limits: RateLimits, log: Logger, res: Response, buckets: Bucket[]): Promise<void> {
  report(res, await count(limits, log, buckets));
  res.locals.rateLimitGeneral = buckets;
}

export function rateLimit(limits: RateLimits, log: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const calls = limits.enabled ? generalCalls(req.path) : 0;
    if (calls === 0) return next();
    const buckets = generalBuckets({ ...limitSubject(req), read: req.method === 'GET' || req.method === 'HEAD', calls });
    checkGeneral(limits, log, res, buckets).then(() => next(), next);
  };
}

/** The address buckets are keyed by (X-Forwarded-For only from TRUST_PROXY's proxies). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** Who the request is to the limiter: its address, and the user, app and token once authenticated. */
export function limitSubject(req: Request): LimitSubject {
  const token = req.actor ? /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1] : undefined;
  return { ip: clientIp(req), actor: req.actor ?? undefined, tokenId: token ? tokenBucketId(token) : undefined };
}
