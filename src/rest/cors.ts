// CORS for browser apps: any origin may call with a bearer token (no cookies on the APIs), and the
// rate-limit headers and request id are readable from scripts.
import type { NextFunction, Request, Response } from 'express';
import { INCOMING_REQUEST_ID_HEADER, REQUEST_ID_HEADER } from './request-id.ts';

// Deprecation, Sunset and Link tell a script that an endpoint it calls is going away (GET /profile/home).
const EXPOSED_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', REQUEST_ID_HEADER, 'Deprecation', 'Sunset', 'Link'];
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', INCOMING_REQUEST_ID_HEADER];
const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function cors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '));
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
}
