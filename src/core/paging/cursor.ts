// Opaque keyset cursors. A cursor carries the position after the last row served and a hash
// of the other query parameters it was made for: sent back with different parameters it is a 400
// `invalid_request`, never a silently wrong page. Never OFFSET on user data.
import { createHash } from 'node:crypto';
import { invalidRequest } from '../errors.ts';

export type CursorParams = Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>;

// A cursor is not signed: its parameters hash can be recomputed by anyone, so its position is client
// input like any other. Each endpoint's position check uses these to let through only what PostgreSQL
// reads back without an error (a 500): no NUL character anywhere (checked for every cursor below),
// integers within their column, real timestamps.

const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;
const XID8_MAX = 2n ** 64n - 1n;

/** Decimal text of a PostgreSQL bigint (row ids, list positions). */
export function isBigintText(v: unknown): v is string {
  return typeof v === 'string' && /^-?\d{1,19}$/.test(v) && BigInt(v) >= BIGINT_MIN && BigInt(v) <= BIGINT_MAX;
}

/** Decimal text of a PostgreSQL xid8 (a transaction id). */
export function isXid8Text(v: unknown): v is string {
  return typeof v === 'string' && /^\d{1,20}$/.test(v) && BigInt(v) <= XID8_MAX;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2})(?::?(\d{2}))?)$/;

/**
 * A timestamp as the service writes it into cursors (ISO 8601 in UTC, or PostgreSQL's own text of a
 * timestamptz, `2026-01-02 03:04:05.123456+00`): a real date and time from year 1 to 9999, an offset
 * PostgreSQL accepts (at most 15:59).
 */
export function isTimestampText(v: unknown): v is string {
  const m = typeof v === 'string' ? TIMESTAMP.exec(v) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!);
  const realDay = date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
  return year! >= 1 && realDay && hour! < 24 && minute! < 60 && second! < 60 && offsetHours! <= 15 && offsetMinutes! < 60;
}

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
  // JSON.stringify writes a NUL character as \u0000 (text that contains "\u0000" itself is refused too).
  if (!body || typeof body !== 'object' || typeof body.h !== 'string' || JSON.stringify(body).includes('\\u0000') || !isPosition(body.p)) {
    throw invalidRequest('cursor is not a cursor this service issued');
  }
  if (body.h !== paramsHash(params)) {
    throw invalidRequest('cursor was issued for different query parameters; keep every other parameter identical while paging');
  }
  return body.p;
}
