// A NUL character (U+0000) never reaches PostgreSQL: its text cannot hold one, and a query parameter
// holding one fails in the database (a 500). Every request is checked here, once, after its body is
// read and before any route (the REST facade, /trpc, OAuth, the event stream), so no route can forget:
// the path, every query parameter, the body (JSON or form) and the JSON input of a /trpc GET call. A NUL
// anywhere, in a value or in a key, is a 400 `invalid_request` naming the field.
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../core/errors.ts';

const NUL = '\u0000';
const ENCODED_NUL = /%00/i;

/**
 * Where the first NUL in `value` is (e.g. ['items', '0', 'title']; [] when `value` itself is such a
 * string), or undefined. Walks with its own stack: a value has no depth limit of its own here.
 */
function findNul(value: unknown): string[] | undefined {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (stack.length) {
    const next = stack.pop()!;
    if (typeof next.value === 'string') {
      if (next.value.includes(NUL)) return next.path;
      continue;
    }
    if (next.value === null || typeof next.value !== 'object') continue;
    for (const [key, child] of Object.entries(next.value)) {
      const path = [...next.path, key];
      if (key.includes(NUL)) return path;
      stack.push({ value: child, path });
    }
  }
  return undefined;
}

function refusal(field: string): ApiError {
  return new ApiError('invalid_request', `${field}: must not contain the NUL character (\\u0000)`);
}

const fieldName = (path: string[], whole: string) => (path.length ? path.map((k) => k.replaceAll(NUL, '\\u0000')).join('.') : whole);

function nulInRequest(req: Request): ApiError | undefined {
  if (ENCODED_NUL.test(req.path)) return refusal('path');
  const query = req.originalUrl.indexOf('?');
  if (query >= 0) {
    for (const [key, value] of new URLSearchParams(req.originalUrl.slice(query + 1))) {
      if (key.includes(NUL) || value.includes(NUL)) return refusal(fieldName([key], key));
    }
  }
  const inBody = findNul(req.body);
  if (inBody) return refusal(fieldName(inBody, 'body'));
  const inInput = findNul(req.queryInput);
  if (inInput) return refusal(fieldName(inInput, 'input'));
  return undefined;
}

export function refuseNul(req: Request, _res: Response, next: NextFunction): void {
  next(nulInRequest(req));
}
