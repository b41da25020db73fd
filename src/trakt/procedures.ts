// The service's procedures as the facade calls them: tRPC's server-side caller over the combined router,
// with the request's context, so every rule a procedure's middlewares apply (scope, its own rate-limit
// buckets, idempotency) applies to a Trakt request exactly as to /trpc. A procedure's ApiError comes
// back out as the ApiError (not tRPC's wrapper), for errors.ts to answer in Trakt's terms.
import { appRouter } from '../rpc/app-router.ts';
import { toApiError } from '../rpc/errors.ts';
import type { Context } from '../rpc/trpc.ts';

/** `procedures.platform.sync.history(input)`, `procedures.public.catalog.search(input)`. */
export type Procedures = ReturnType<typeof appRouter.createCaller>;

/** The procedures as one request's context calls them; their errors rethrown as ApiError. */
export function proceduresFor(ctx: Context): Procedures {
  return unwrapErrors(appRouter.createCaller(ctx));
}

// tRPC's caller is a recursive proxy: every property is another proxy, and calling one runs the procedure.
function unwrapErrors<T>(node: T): T {
  return new Proxy(node as object, {
    get: (target, key) => unwrapErrors(Reflect.get(target, key)),
    apply: (target, thisArg, args) =>
      (Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args) as Promise<unknown>).catch((err: unknown) => Promise.reject(toApiError(err))),
  }) as T;
}
