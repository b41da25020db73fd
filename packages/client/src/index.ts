// The typed client of the media tracking service for first-party apps: tRPC over HTTP at
// `${baseUrl}/trpc`, calls made in the same tick batched into one request, a bearer token on each. Sync
// writes go alone, with their Idempotency-Key (idempotency.ts); subscriptions over server-sent events
// (subscriptions.ts).
import { createTRPCClient, httpBatchLink, httpLink, isTRPCClientError, splitLink, TRPCClientError, type Operation, type TRPCClient, type TRPCLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router.js';
import { idempotencyLinks, isKeyed } from './idempotency.js';
import { refreshOnUnauthorized, sentToken, TOKEN_KEY } from './refresh-link.js';
import { subscriptionLinks } from './subscriptions.js';

export type { AppRouter };

export { isUnauthorized } from './refresh-link.js';
export { withIdempotencyKey } from './idempotency.js';
/** What a failed call rejects with: `err.data` has the service's error code (`error`) and `httpStatus`. */
export { TRPCClientError };

/** A failed call of this service: `err.data?.error` is one of its error codes (ErrorCode). */
export type ServiceError = TRPCClientError<AppRouter>;
/** The service's error codes, as failed calls carry them in `err.data.error`. */
export type ErrorCode = NonNullable<ServiceError['data']>['error'];

/** Whether `err` is a failed call, typed: `if (isServiceError(err) && err.data?.error === 'idempotency_conflict')`. */
export function isServiceError(err: unknown): err is ServiceError {
  return isTRPCClientError<AppRouter>(err);
}

/** Every procedure's input, by path: `RouterInputs['platform']['lists']['create']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output as the client receives it (JSON: dates are ISO strings), by path. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** The public API (no token): catalog, public profiles, community. */
export type PublicInputs = RouterInputs['public'];
export type PublicOutputs = RouterOutputs['public'];
/** The platform API (a bearer token holding each procedure's scope). */
export type PlatformInputs = RouterInputs['platform'];
export type PlatformOutputs = RouterOutputs['platform'];

export type Client = TRPCClient<AppRouter>;

/**
 * Returns the current access token. The client calls it with `forceRefresh: false` before each request,
 * and once with `forceRefresh: true` when the service rejected a token (401): then it must return a new
 * one (e.g. from the refresh-token grant), which the rejected call is sent again with, once.
 */
export type GetToken = (opts: { forceRefresh: boolean }) => string | Promise<string>;

export type ClientOptions =
  /** A fixed token (or none, for the public API only): a 401 goes to the caller as it is. */
  | { baseUrl: string; token?: string | undefined }
  /** Tokens from the app's own store, refreshed on a 401. */
  | { baseUrl: string; getToken: GetToken };

/**
 * A typed client of the service at `baseUrl` (its origin, e.g. `https://media.example`): every procedure of
 * the public and platform APIs, as `client.public.catalog.search.query({ q })` or
 * `client.platform.lists.create.mutate({ name })`.
 */
export function createClient(opts: ClientOptions): Client {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/trpc`;
  const getToken = 'getToken' in opts ? opts.getToken : undefined;
  const fixed = 'token' in opts ? opts.token : undefined;
  const currentToken = async () => (getToken ? getToken({ forceRefresh: false }) : fixed);
  /** The bearer header of the calls of one request; each call notes the token it went with (for a refresh after a 401). */
  const authorization = async (ops: readonly Operation[]): Promise<Record<string, string>> => {
    // A retried call brings the refreshed token; the others in its batch may as well use it too.
    const token = ops.map(sentToken).find((t) => t !== undefined) ?? (await currentToken());
    if (token === undefined) return {};
    if (getToken) for (const op of ops) op.context[TOKEN_KEY] = token;
    return { authorization: `Bearer ${token}` };
  };
  const links: TRPCLink<AppRouter>[] = [...idempotencyLinks<AppRouter>()];
  if (getToken) links.push(refreshOnUnauthorized<AppRouter>(refresher(getToken)));
  links.push(
    splitLink<AppRouter>({
      condition: (op) => op.type === 'subscription',
      true: subscriptionLinks(url, currentToken),
      false: splitLink<AppRouter>({
        condition: isKeyed,
        true: httpLink<AppRouter>({
          url,
          headers: async ({ op }) => ({ ...(await authorization([op])), 'idempotency-key': String(op.context.idempotencyKey) }),
        }),
        false: httpBatchLink<AppRouter>({ url, headers: ({ opList }) => authorization(opList) }),
      }),
    }),
  );
  return createTRPCClient<AppRouter>({ links });
}

/**
 * One refresh per rejected token: the calls of a batch fail together, and all of them wait for the same
 * `getToken({ forceRefresh: true })`. A failed refresh is forgotten, so a later 401 tries again.
 */
function refresher(getToken: GetToken): (rejected: string | undefined) => Promise<string> {
  let last: { rejected: string | undefined; fresh: Promise<string> } | undefined;
  return (rejected) => {
    if (last && last.rejected === rejected) return last.fresh;
    const fresh = (async () => getToken({ forceRefresh: true }))();
    const entry = { rejected, fresh };
    last = entry;
    fresh.catch(() => {
      if (last === entry) last = undefined;
    });
    return fresh;
  };
}
