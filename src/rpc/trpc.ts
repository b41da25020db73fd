// tRPC foundation: the request context, procedure metadata (OpenAPI route, scope, rate-limit class) and
// the base procedures every router builds on.
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Actor } from '../core/actor.ts';
import type { CatalogCache } from '../core/catalog/cache.ts';
import type { Scope } from '../core/schema/apps.ts';
import type { LimitId } from '../core/limits/table.ts';
import { ApiError, type ErrorCode } from '../core/errors.ts';
import { SSE_TIMING, type OpenStream } from '../core/events/live-stream.ts';
import type { Logger } from '../core/log.ts';
import { toApiError, toTrpcError } from './errors.ts';

export type Context = {
  requestId: string;
  em: EntityManager;
  config: Config;
  log: Logger;
  actor: Actor | null;
  catalogCache: CatalogCache;
  /** The request's headers (lower-case names), for procedures that read one (e.g. Idempotency-Key). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Which transport called: the facade (`rest`, under a surface's base) or `/trpc` (names carry the surface). */
  transport: 'rest' | 'trpc';
  /**
   * Set by the REST facade only (src/rest/input-types.ts): reads the query-string and path text of a
   * procedure's raw input (`procedure` as the surface's router names it) into the numbers and booleans
   * its input declares. /trpc input is JSON, whose types are the caller's.
   */
  readRestText?: ((procedure: string, raw: unknown) => unknown) | undefined;
  /**
   * Counts the request in the buckets a procedure names (`meta.limits`) and writes the rate-limit
   * headers; throws `rate_limited` when one is full. Absent when rate limits are off.
   */
  countLimits?: ((limitIds: readonly LimitId[], operation: string) => Promise<void>) | undefined;
  /**
   * A non-200 success status or extra headers set by a procedure; the facade reads it in responseMeta.
   * `stream`: the REST body, written piece by piece in place of the procedure's JSON answer (the full
   * export); only the facade writes it, so a procedure sets it only when `transport` is `rest`.
   */
  response: { status?: number; headers: Record<string, string>; route?: string | undefined; stream?: AsyncIterable<string> };
  /** Runs in each bulk sync write's transaction after its writes, before the commit (server.ts ServerDeps). */
  beforeSyncCommit?: SyncCommitHook | undefined;
  /** Opens a live event stream (rest/live-events.ts); absent when the app has no event bus. */
  openStream?: OpenStream | undefined;
};

/** A step of bulk sync writes before their commit, given the transaction and the request's log. */
export type SyncCommitHook = (tx: EntityManager, log: Logger) => Promise<void>;

export type Meta = OpenApiMeta<{
  /** Scope a platform procedure requires (the scope table of the platform OpenAPI document); set by platformProcedure. */
  scope?: Scope;
  /** Procedures that check scopes themselves (change feed, snapshot): the token needs one of these. */
  anyScope?: readonly Scope[];
  /** Procedures that need several scopes at once (the full export): the token needs every one; set by allScopesProcedure. */
  allScopes?: readonly Scope[];
  /** Per-endpoint rate-limit buckets (ids of the limits table), counted besides the general buckets. */
  limits?: readonly LimitId[];
  /** Largest request body the procedure takes, in bytes (default: 64 KiB). */
  bodyLimit?: number;
  /** Reserved for apps an operator marked official (403 `first_party_only`); set by the official procedures. */
  official?: boolean;
  /**
   * The error codes the procedure's own rules answer with, beyond those its policy implies (input,
   * token, scope, body, rate limits, path ids: src/rest/openapi-errors.ts derives those). The OpenAPI
   * documents list exactly these answers; test/fuzz.test.ts fails on any other status.
   */
  errors?: readonly ErrorCode[];
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // No stack trace or file path ever goes on the wire, whatever NODE_ENV says: tRPC's development
    // default (NODE_ENV unset, `development`, `test`) puts the stack in `data.stack`. Failures are logged
    // with their stack server-side instead (the onError handlers in src/rest).
    isDev: false,
    // /trpc errors carry what the envelope carries (`error`, `request_id`, `required_scope`, ...) in `data`.
    errorFormatter({ shape, error, ctx }) {
      const apiError = toApiError(error);
      const { stack: _stack, ...data } = shape.data;
      return {
        ...shape,
        message: apiError.message,
        data: { ...data, httpStatus: apiError.status, ...apiError.extra, error: apiError.code, request_id: ctx?.requestId ?? null },
      };
    },
    // Subscriptions (the live events) as server-sent events. tRPC's ping is the stream's heartbeat, and
    // its maxDurationMs the stream's lifetime: the response then ends without tRPC's `return`, so the
    // client's EventSource reconnects with its last event id. Getters: the timing is read per stream
    // (tests shorten it), as the REST stream reads it.
    sse: {
      ping: {
        enabled: true,
        get intervalMs() {
          return SSE_TIMING.heartbeatMs;
        },
      },
      get maxDurationMs() {
        return SSE_TIMING.maxStreamMs;
      },
    },
  });

export const router = t.router;

/** The name both transports count a procedure under: `sync.history` (on /trpc: `platform.sync.history`). */
function operationName(ctx: Context, path: string): string {
  return ctx.transport === 'trpc' ? path.slice(path.indexOf('.') + 1) : path;
}

/**
 * Every procedure: its own rate-limit buckets are counted first (the same buckets whichever transport
 * calls it), a REST call's text is read into its input's types before any validator runs, and ApiErrors
 * thrown by core become TRPCErrors with the matching HTTP status.
 */
const base = t.procedure.use(async ({ ctx, meta, path, getRawInput, next }) => {
  if (meta?.limits?.length && ctx.countLimits) {
    try {
      await ctx.countLimits(meta.limits, operationName(ctx, path));
    } catch (err) {
      throw err instanceof ApiError ? toTrpcError(err) : err;
    }
  }
  const readText = ctx.transport === 'rest' ? ctx.readRestText : undefined;
  const result = await (readText ? next({ getRawInput: async () => readText(path, await getRawInput()) }) : next());
  if (!result.ok && result.error.cause instanceof ApiError) {
    throw toTrpcError(result.error.cause);
  }
  return result;
});

/** Unauthenticated procedures of the public API. */
export const publicProcedure = base;

/**
 * A bearer token is required (401 `invalid_token`); the procedure itself checks the scopes it needs
 * (e.g. the change feed, whose scope depends on the resources asked for).
 */
export const authenticatedProcedure = base.use(({ ctx, next }) => {
  if (!ctx.actor) throw toTrpcError(new ApiError('invalid_token', 'A bearer access token is required'));
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});

/**
 * Platform procedures: a bearer token is required (401 `invalid_token`) and it must hold `scope`
 * (403 `insufficient_scope` naming it in `required_scope`).
 */
export function platformProcedure(scope: Scope) {
  return authenticatedProcedure.meta({ scope }).use(({ ctx, next }) => {
    if (!ctx.actor.scopes.has(scope)) {
      throw toTrpcError(new ApiError('insufficient_scope', `This call needs the ${scope} scope`, { required_scope: scope }));
    }
    return next({ ctx: { ...ctx, actor: ctx.actor } });
  });
}

/**
 * Platform procedures open to a token holding any one of `scopes` (403 `insufficient_scope` naming the
 * first in `required_scope` when it holds none); the procedure checks what each scope allows.
 */
export function anyScopeProcedure(scopes: readonly Scope[]) {
  return authenticatedProcedure.meta({ anyScope: scopes }).use(({ ctx, next }) => {
    if (!scopes.some((s) => ctx.actor.scopes.has(s))) {
      throw toTrpcError(new ApiError('insufficient_scope', `This call needs one of the scopes ${scopes.join(', ')}`, { required_scope: scopes[0] }));
    }
    return next({ ctx: { ...ctx, actor: ctx.actor } });
  });
}

/**
 * Platform procedures that read across resources (the full export, the year in review): the token must
 * hold every scope in `scopes` (403 `insufficient_scope` naming the first it lacks in `required_scope`).
 */
export function allScopesProcedure(scopes: readonly Scope[]) {
  return authenticatedProcedure.meta({ allScopes: scopes }).use(({ ctx, next }) => {
    const missing = scopes.find((s) => !ctx.actor.scopes.has(s));
    if (missing) {
      throw toTrpcError(new ApiError('insufficient_scope', `This call needs the scopes ${scopes.join(', ')}; the token lacks ${missing}`, { required_scope: missing }));
    }
    return next({ ctx: { ...ctx, actor: ctx.actor } });
  });
}

/** `allScopesProcedure` reserved for apps an operator marked official (others: 403 `first_party_only`). */
export function officialAllScopesProcedure(scopes: readonly Scope[]) {
  return allScopesProcedure(scopes).meta({ official: true }).use(({ ctx, next }) => {
    if (!ctx.actor.official) throw toTrpcError(new ApiError('first_party_only', 'This endpoint is reserved for official clients'));
    return next();
  });
}

/** Platform procedures reserved for apps an operator marked official (others: 403 `first_party_only`). */
export function officialProcedure(scope: Scope) {
  return platformProcedure(scope).meta({ official: true }).use(({ ctx, next }) => {
    if (!ctx.actor.official) throw toTrpcError(new ApiError('first_party_only', 'This endpoint is reserved for official clients'));
    return next();
  });
}
