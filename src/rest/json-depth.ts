// JSON from a client may nest at most MAX_JSON_DEPTH levels. It is checked on the raw text, before
// JSON.parse: everything after the parse (the NUL check, zod, the facade's coercion) walks the value
// recursively, and a 64 KiB body could otherwise nest 32,000 levels deep. Each `{` or `[` is a level:
// `[]` is 1, `{"a":[1]}` is 2. A /trpc batch wraps the calls' inputs in one more object
// (`{"0": input}`), so it is allowed one level more: an input has the same limit on every transport.
import type { Request } from 'express';
import { ApiError } from '../core/errors.ts';
import { isTrpcPath } from './envelope.ts';

const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `text` opens more than `limit` objects or arrays inside one another (one pass, no recursion). */
function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

function isTrpcBatch(req: Request): boolean {
  if (!isTrpcPath(req.path)) return false;
  const query = req.originalUrl.indexOf('?');
  return query >= 0 && new URLSearchParams(req.originalUrl.slice(query + 1)).get('batch') === '1';
}

/** 400 `invalid_request` when `text` (a body, or the JSON input of a /trpc GET call) nests too deep. */
export function refuseDeepJson(req: Request, text: string, what: string): void {
  const limit = isTrpcBatch(req) ? MAX_JSON_DEPTH + 1 : MAX_JSON_DEPTH;
  if (nestedDeeperThan(text, limit)) {
    throw new ApiError('invalid_request', `${what} is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}
