// What a route of the Trakt-compatible facade is: Trakt's method and path, whether it needs a user, and
// the handler, which maps Trakt's request onto the service's procedures (or core reads) and their answer
// back into Trakt's shapes. The route table drives both the Express routes and /trakt/openapi.json.
import type { Request, Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Scope } from '../core/schema/apps.ts';
import type { LimitId } from '../core/limits/table.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { OAuth } from '../oauth/index.ts';
import type { Procedures } from './procedures.ts';

/** `none`: no user (a token, if sent, is still checked); `optional`: a user when a token is sent; `required`: 401 without one. */
type TraktAuth = 'none' | 'optional' | 'required';

export type TraktCall = {
  req: Request;
  res: Response;
  /** Path parameters by their names in `path` (`:id` -> `params.id`). */
  params: Record<string, string>;
  /** The query string, one value per name (the app parses it 'simple'). */
  query: Record<string, string | undefined>;
  /** The parsed JSON body ({} when none). */
  body: unknown;
  /** The user the bearer token acts for (always set on `required` routes). */
  actor: Actor | null;
  /** A request-scoped entity manager, for core reads. */
  em: EntityManager;
  config: Config;
  log: Logger;
  /** The service's procedures, called as this request (scopes, buckets, idempotency and all). */
  procedures: Procedures;
  /** The same procedures with some request headers replaced (a bulk sync batch's own Idempotency-Key). */
  proceduresWith(headers: Readonly<Record<string, string>>): Procedures;
  /** What routes outside the procedures go through: the authorization server and the limiter. */
  services: { orm: MikroORM; oauth: OAuth; limits: RateLimits };
};

/** What a handler answers: a status (200 unless given), a JSON body (none for 204), extra headers. */
export type TraktAnswer = { status?: number; body?: unknown; headers?: Record<string, string> };

export type TraktRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Trakt's path with Express parameters, e.g. `/users/:id/lists/:list_id/items`. */
  path: string;
  /** One line for the OpenAPI document. */
  summary: string;
  /** The OpenAPI tag (Trakt's section: OAuth, Scrobble, Sync, Users, Movies, ...). */
  tag: string;
  auth: TraktAuth;
  /**
   * The scope a route needs that is served from core reads rather than a procedure (a procedure checks
   * its own). 403 without it.
   */
  scope?: Scope;
  /**
   * The rate-limit buckets of the platform procedure a route answers for when it reads core directly
   * (e.g. `history` for a history page), counted for the request as that procedure counts them.
   */
  limits?: readonly LimitId[];
  /** Whether the route takes `page` and `limit` and answers the X-Pagination headers. */
  paged?: boolean;
  /** The status codes the route answers besides 200 and the common ones (401, 403, 404, 429), for the document. */
  statuses?: readonly number[];
  /** Whether the route needs no `trakt-api-key` (the OAuth endpoints, which carry `client_id` in the body). */
  keyless?: boolean;
  handle(call: TraktCall): Promise<TraktAnswer>;
};
