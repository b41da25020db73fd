// Mints the request id every response carries (X-Service-Request-Id) and every log line names.
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Service-Request-Id';

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}

export function requestId(req: Request, res: Response, next: NextFunction): void {
  req.id = newRequestId();
  res.setHeader(REQUEST_ID_HEADER, req.id);
  next();
}
