// Reads and parses request bodies for every route (APIs and OAuth alike), with these limits (docs/security.md, Limits):
// JSON and form bodies up to 64 KiB, or the cap the procedure the request reaches names in its
// metadata (512 KiB for the bulk sync writes), the same on REST and /trpc; exactly the limit accepted
// and one byte more a 413; the whole body within 10 s or a 408. Node's own server timeout answers a slow body only after
// minutes and without a body, so the deadline is enforced here. JSON nested deeper than 64 levels is a
// 400, refused before it is parsed (json-depth.ts).
// Outside the JSON APIs (the OAuth endpoints, the pages and their forms) a body is flat parameters: a
// form, or JSON that is an object of string values (a number or boolean stands for its text, a null
// for an absent field). Any other JSON (a string, a number, an array, null, a nested value) is a 400
// `invalid_request` here, once, so no route reads a value it cannot take apart (`'x' in body` threw).
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import { BODY_LIMIT, STREAMED_BODY_PATHS, SYNC_BODY_LIMIT } from '../core/limits/body.ts';
import { restProcedure, trpcProcedures, type ProcedureEntry } from '../rpc/procedures.ts';
import { isOAuthEndpoint } from '../oauth/routes.ts';
import { isTraktPath, isTrpcPath, PLATFORM_BASE, PUBLIC_BASE, TRAKT_BASE, TRPC_BASE } from './envelope.ts';
import { refuseDeepJson } from './json-depth.ts';
import { HOOKS_PATH } from '../core/media-servers/secret.ts';

const BODY_DEADLINE_MS = 10_000;

/**
 * The cap of the procedure a request reaches, found before the body is read. A /trpc batch takes the
 * largest cap of its calls (each input is still checked by its own schema).
 */
export function bodyLimitFor(method: string, path: string): number {
  const capOf = (p: ProcedureEntry | undefined) => p?.meta.bodyLimit ?? BODY_LIMIT;
  if (path.startsWith(`${PLATFORM_BASE}/`)) return capOf(restProcedure('platform', method, path.slice(PLATFORM_BASE.length)));
  if (path.startsWith(`${PUBLIC_BASE}/`)) return capOf(restProcedure('public', method, path.slice(PUBLIC_BASE.length)));
  if (isTrpcPath(path)) {
    const caps = trpcProcedures(path.slice(TRPC_BASE.length)).map(capOf);
    return caps.length ? Math.max(...caps) : BODY_LIMIT;
  }
  // The Trakt-compatible facade's bulk writes (sync, list items) take the bulk sync cap, the rest the default.
  if (isTraktPath(path) && (path.startsWith(`${TRAKT_BASE}/sync/`) || /^\/trakt\/users\/[^/]+\/lists\/[^/]+\/items(\/remove)?$/.test(path))) return SYNC_BODY_LIMIT;
  return BODY_LIMIT;
}

export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a path's body is flat parameters: everything but the procedures' APIs (REST, /trpc and the Trakt-compatible facade), the OAuth endpoints below the platform base included. */
function takesFlatParameters(path: string): boolean {
  if (isOAuthEndpoint(path)) return true;
  return !(path.startsWith(`${PLATFORM_BASE}/`) || path.startsWith(`${PUBLIC_BASE}/`) || isTrpcPath(path) || isTraktPath(path));
}

const NOT_FLAT = 'The body must be a form, or a JSON object of string values';

/** A parsed JSON body as the string map a form would have made, or 400 when it is not flat. */
function flatParameters(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid_request', NOT_FLAT);
  const fields: Array<[string, string]> = [];
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    if (typeof field === 'string') fields.push([key, field]);
    else if (typeof field === 'number' || typeof field === 'boolean') fields.push([key, String(field)]);
    else throw new ApiError('invalid_request', `${key} must be a string (${NOT_FLAT.toLowerCase()})`);
  }
  return Object.fromEntries(fields);
}

function parseBody(req: Request, type: string, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = raw.toString('utf8');
    refuseDeepJson(req, text, 'JSON body');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ApiError('invalid_request', `Malformed JSON body: ${(err as Error).message}`);
    }
    return takesFlatParameters(req.path) ? flatParameters(value) : value;
  }
  if (type === 'application/x-www-form-urlencoded') {
    // OAuth (RFC 6749 §3.1): a parameter must not appear more than once.
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(raw.toString('utf8'))) {
      if (Object.hasOwn(form, key)) throw new ApiError('invalid_request', `Parameter ${key} is repeated`);
      form[key] = value;
    }
    return form;
  }
  return undefined;
}

/** Ends the connection once the error response is out: the rest of the body is never read. */
export function failAndClose(req: Request, res: Response, next: NextFunction, err: ApiError) {
  res.setHeader('Connection', 'close');
  res.once('finish', () => setImmediate(() => req.socket.destroy()));
  next(err);
}

export function readBody(req: Request, res: Response, next: NextFunction): void {
  // Marking the body as read keeps the facade and tRPC adapters from reading the stream again.
  req.body = undefined;
  if (!hasBody(req)) {
    next();
    return;
  }
  // A media server's webhook: its route reads the body, in whatever form the server sends it.
  if (req.path.startsWith(`${HOOKS_PATH}/`)) {
    next();
    return;
  }
  if (req.method === 'POST' && STREAMED_BODY_PATHS.has(req.path)) {
    // Its route reads the upload as a stream; any other body there is no upload, refused unread.
    if (mediaType(req) === 'multipart/form-data') next();
    else failAndClose(req, res, next, new ApiError('invalid_request', 'The body must be a multipart/form-data upload'));
    return;
  }
  const limit = bodyLimitFor(req.method, req.path);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    failAndClose(req, res, next, new ApiError('payload_too_large', `Request body is over the ${limit}-byte limit`));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const finish = (err?: ApiError) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    if (err) {
      req.pause();
      failAndClose(req, res, next, err);
      return;
    }
    try {
      req.body = parseBody(req, mediaType(req), Buffer.concat(chunks, size));
      next();
    } catch (parseErr) {
      next(parseErr);
    }
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) finish(new ApiError('payload_too_large', `Request body is over the ${limit}-byte limit`));
    else chunks.push(chunk);
  };
  const onEnd = () => finish();
  const onError = () => {
    done = true;
    clearTimeout(timer);
    req.socket.destroy();
  };
  const timer = setTimeout(
    () => finish(new ApiError('request_timeout', `Request body was not received within ${BODY_DEADLINE_MS / 1000} seconds`)),
    BODY_DEADLINE_MS,
  );
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}
