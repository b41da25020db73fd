// The service's procedures as the facade calls them: tRPC's server-side caller over the combined router,
// with the request's context, so every rule a procedure's middlewares apply (scope, its own rate-limit
// buckets, idempotency) applies to a Trakt request exactly as to /trpc. A procedure's ApiError comes
// back out as the ApiError (not tRPC's wrapper), for errors.ts to answer in Trakt's terms.
import { appRouter } from '../rpc/app-router.ts';
import { toApiError } from '../rpc/errors.ts';
import type { Context } from '../rpc/trpc.ts';

/** `procedures.platform.sync.history(input)`, `procedures.public.catalog.search(input)`. */
export type Procedures = ReturnType<typeof appRouter.createCaller>;

/**
 * The procedures as one request's context calls them; their errors rethrown as ApiError. `headers`
 * replace the request's headers of the same (lower-case) names for these calls only: a route that makes
 * several calls of one request tells each its own Idempotency-Key this way (the bulk sync writes read
 * the key from the context's headers), without touching the request.
 */
export function proceduresFor(ctx: Context, headers?: Readonly<Record<string, string>>): Procedures {
  return unwrapErrors(appRouter.createCaller(headers ? { ...ctx, headers: { ...ctx.headers, ...headers } } : ctx));
}

// tRPC's caller is a recursive proxy: every property is another proxy, and calling one runs the procedure.
function unwrapErrors<T>(node: T): T {
  return new Proxy(node as object, {
    get: (target, key) => unwrapErrors(Reflect.get(target, key)),
    apply: (target, thisArg, args) =>
      (Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args) as Promise<unknown>).catch((err: unknown) => Promise.reject(toApiError(err))),
  }) as T;
}
