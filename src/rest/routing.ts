// One routing rule for every route the service serves: a path reaches a handler only as it is written
// where the route is defined. Express, oidc-provider's router and trpc-to-openapi all match paths in
// any letter case and with an optional trailing slash by default, while rate-limit buckets and checks
// are keyed on the route as written: `/auth/device/Code` reached the provider's device endpoint past
// the device-code bucket and the scope check. So every matcher is strict and case-sensitive, and a path
// that a library would rewrite before matching (dot segments, empty segments, backslashes, a trailing
// slash) is refused before any route sees it: the answer is the same 404 as for a path that does not
// exist.
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import { ApiError } from '../core/errors.ts';

/** An Express router that matches paths exactly: case-sensitive, no optional trailing slash. */
export function strictRouter(): Router {
  return express.Router({ caseSensitive: true, strict: true });
}

/** The same rule for the app's own routes and mount paths. */
export function routeStrictly(app: Express): void {
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
}

// `.` and `..`, also percent-encoded (the WHATWG URL parser, which trpc-to-openapi uses, resolves both).
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Whether a path is spelled the one way a route can name it: no empty segment (`//`, a trailing
 * slash), no dot segment, no backslash (URL parsers read it as a slash).
 */
function isCanonicalPath(path: string): boolean {
  if (path === '/') return true;
  if (!path.startsWith('/') || path.includes('\\') || /%5c/i.test(path)) return false;
  return path
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && !DOT_SEGMENT.test(segment));
}

/** The answer to a request no route takes. */
export function noRoute(req: Request): ApiError {
  return new ApiError('not_found', `No route for ${req.method} ${req.path}`);
}

/** The pipeline's step: a path no route could spell is a 404 before any route sees it. */
export function refuseVariantPath(req: Request, _res: Response, next: NextFunction): void {
  next(isCanonicalPath(req.path) ? undefined : noRoute(req));
}
