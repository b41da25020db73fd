// Writes errors in the shapes of the OpenAPI documents (`Error`, `PublicError`): `{error, message, request_id, required_scope?}` on the platform
// API (and everything that is not the public API), `{message}` on the public API, and tRPC's own error
// shape carrying the same fields on /trpc.
import type { Request, Response } from 'express';
import type { ApiError } from '../core/errors.ts';
import { trpcErrorBody } from '../rpc/errors.ts';

export const PUBLIC_BASE = '/api/public/v1';
export const PLATFORM_BASE = '/api/platform/v1';
/** First-party clients: the same procedures over tRPC's own protocol. */
export const TRPC_BASE = '/trpc';
/** The Trakt-compatible facade (src/trakt/): Trakt API v2 under this base. */
export const TRAKT_BASE = '/trakt';

export function isTraktPath(path: string): boolean {
  return path === TRAKT_BASE || path.startsWith(`${TRAKT_BASE}/`);
}

export function isTrpcPath(path: string): boolean {
  return path === TRPC_BASE || path.startsWith(`${TRPC_BASE}/`);
}

function isPublicPath(path: string): boolean {
  return path === PUBLIC_BASE || path.startsWith(`${PUBLIC_BASE}/`);
}

export function errorBody(req: Request, err: ApiError): Record<string, unknown> {
  const path = req.originalUrl.split('?')[0] ?? '';
  if (isPublicPath(path)) return { message: err.message };
  if (isTrpcPath(path)) return trpcErrorBody(err, req.id ?? null);
  return { error: err.code, message: err.message, request_id: req.id ?? null, ...err.extra };
}

/** Headers an error status carries with it (RFC 6750 for 401, Retry-After for 429 and 503). */
export function errorHeaders(res: Response, err: ApiError): void {
  if ((err.status === 429 || err.status === 503) && err.extra?.retry_after !== undefined) res.setHeader('Retry-After', String(err.extra.retry_after));
  if (err.code === 'invalid_token') res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
  if (err.code === 'insufficient_scope') res.setHeader('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${String(err.extra?.required_scope ?? '')}"`);
}

export function sendError(req: Request, res: Response, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  errorHeaders(res, err);
  res.status(err.status).type('application/json').send(JSON.stringify(errorBody(req, err)));
}
