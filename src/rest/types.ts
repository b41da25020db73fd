// What the pipeline adds to each request as it passes through (see app.ts for the order).
import type { Actor } from '../core/actor.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** `req_...`, also sent back as X-Service-Request-Id. */
    id: string;
    /** Set by bearer authentication on the platform API. */
    actor?: Actor | null;
    /** A bearer token that did not verify: answered after the rate limits are counted (and shown). */
    authFailure?: Error;
    /** The route pattern that answered (for logs and metrics), e.g. `GET /catalog/search`. */
    route_label?: string;
    /** The parsed JSON `input` query parameter of a /trpc GET call (trpc-query-input.ts). */
    queryInput?: unknown;
  }
}

export {};
