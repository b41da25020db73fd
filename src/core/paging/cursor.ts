// Opaque keyset cursors (DESIGN §3). A cursor carries the position after the last row served and a hash
// of the other query parameters it was made for: sent back with different parameters it is a 400
// `invalid_request`, never a silently wrong page. Never OFFSET on user data.
import { createHash } from 'node:crypto';
import { invalidRequest } from '../errors.ts';

export type CursorParams = Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>;

function paramsHash(params: CursorParams): string {
  const stable = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort()
    .map((k) => [k, params[k]]);
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 16);
}

/** `position` is whatever the endpoint's keyset needs (e.g. [watchedAt, id]); it must be JSON. */
export function encodeCursor(position: unknown, params: CursorParams): string {
  return Buffer.from(JSON.stringify({ p: position, h: paramsHash(params) })).toString('base64url');
}

/** The position in `cursor`, or a 400 if it is malformed or was made for other parameters. */
export function decodeCursor<T>(cursor: string, params: CursorParams, isPosition: (p: unknown) => p is T): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidRequest('cursor is not a cursor this service issued');
  }
  const body = parsed as { p?: unknown; h?: unknown } | null;
  if (!body || typeof body !== 'object' || typeof body.h !== 'string' || !isPosition(body.p)) {
    throw invalidRequest('cursor is not a cursor this service issued');
  }
  if (body.h !== paramsHash(params)) {
    throw invalidRequest('cursor was issued for different query parameters; keep every other parameter identical while paging');
  }
  return body.p;
}
