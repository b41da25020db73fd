// The service's errors in Trakt's terms. Trakt answers with a status and, for most errors, a small JSON
// body; its clients look at the status. The mapping: a bad or missing token 401; a token without the
// scope, or a `trakt-api-key` that is no active app's, 403; a missing title or record 404; a duplicate
// scrobble or check-in 409 (its own body, from the route); a conflict on a key 409; a validation failure
// 422; the rate limits 429 with Retry-After and Trakt's X-Ratelimit header. The body is always
// `{error, error_description}` (Trakt's OAuth error shape, which its other errors follow), never a stack.
import type { Request, Response } from 'express';
import { ApiError, type ErrorCode } from '../core/errors.ts';
import type { Decision } from '../core/limits/limiter.ts';
import { LIMITS } from '../core/limits/table.ts';
import { toApiError } from '../rpc/errors.ts';

/** The statuses Trakt answers where the service's code has another one. */
const TRAKT_STATUS: Partial<Record<ErrorCode, number>> = {
  media_not_found: 404,
  first_party_only: 403,
};

function traktStatus(err: ApiError): number {
  return TRAKT_STATUS[err.code] ?? err.status;
}

/** Trakt's X-Ratelimit: the bucket that refused, its window and when it resets. */
function rateLimitHeader(d: Decision | undefined): string | undefined {
  if (!d) return undefined;
  const period = LIMITS.find((l) => l.id === d.bucket)?.seconds ?? null;
  return JSON.stringify({ name: d.bucket, period, limit: d.limit, remaining: d.remaining, until: new Date(d.reset * 1000).toISOString() });
}

/** Writes an error answer in Trakt's terms; the rate-limit headers the pipeline set stay. */
export function sendTraktError(req: Request, res: Response, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const err = error instanceof ApiError ? error : toApiError(error);
  const status = traktStatus(err);
  if (status === 429) {
    if (err.extra?.retry_after !== undefined) res.setHeader('Retry-After', String(err.extra.retry_after));
    const header = rateLimitHeader(res.locals.rateLimit as Decision | undefined);
    if (header) res.setHeader('X-Ratelimit', header);
  }
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="trakt", error="invalid_token", error_description="The access token is missing, invalid, expired or revoked"');
  res.setHeader('X-Service-Request-Id', req.id);
  res.status(status).type('application/json').send(JSON.stringify({ error: err.code, error_description: err.message }));
}
