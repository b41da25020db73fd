// The request id every response carries (X-Service-Request-Id), every error envelope and every log line
// names. A caller that already has one (a gateway, another service, a client tracing its own calls)
// sends it as X-Request-Id and it is kept, when it is well formed: this service's own `req_` form or a
// UUID. Anything else is ignored and an id is minted, so no caller can put arbitrary text in the logs.
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Service-Request-Id';
/** The header a caller passes its own id in. */
export const INCOMING_REQUEST_ID_HEADER = 'X-Request-Id';

const OWN_FORM = /^req_[A-Za-z0-9_-]{16}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}

/** The caller's id when it is one this service accepts, else undefined. */
function adoptableRequestId(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && (OWN_FORM.test(value) || UUID.test(value)) ? value : undefined;
}

export function requestId(req: Request, res: Response, next: NextFunction): void {
  req.id = adoptableRequestId(req.headers['x-request-id']) ?? newRequestId();
  res.setHeader(REQUEST_ID_HEADER, req.id);
  next();
}
