// A /trpc GET call carries its input as JSON in the `input` query parameter, where the body reader never
// sees it. It is read here the way a body is: refused when nested too deep (json-depth.ts, before any
// parse), then parsed once into `req.queryInput` for the checks after it (nul-guard.ts). tRPC parses
// the same text again itself; text that is not JSON is left for tRPC to answer.
import type { NextFunction, Request, Response } from 'express';
import { isTrpcPath } from './envelope.ts';
import { refuseDeepJson } from './json-depth.ts';

export function readTrpcQueryInput(req: Request, _res: Response, next: NextFunction): void {
  req.queryInput = undefined;
  const query = req.originalUrl.indexOf('?');
  if (req.method !== 'GET' || query < 0 || !isTrpcPath(req.path)) {
    next();
    return;
  }
  const text = new URLSearchParams(req.originalUrl.slice(query + 1)).get('input');
  if (text === null) {
    next();
    return;
  }
  try {
    refuseDeepJson(req, text, 'input');
  } catch (err) {
    next(err);
    return;
  }
  try {
    req.queryInput = JSON.parse(text);
  } catch {
    // Malformed: tRPC answers it (400) without ever running a procedure.
  }
  next();
}
