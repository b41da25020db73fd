// The typed client of the media tracking service for first-party apps: tRPC over HTTP at
// `${baseUrl}/trpc`, calls made in the same tick batched into one request, a bearer token on each.
import { createTRPCClient, httpBatchLink, type TRPCClient, type TRPCLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './app-router.js';
import { refreshOnUnauthorized, sentToken, TOKEN_KEY } from './refresh-link.js';

export type { AppRouter };
export { isUnauthorized } from './refresh-link.js';
/** What a failed call rejects with: `err.data` has the service's error code (`error`) and `httpStatus`. */
export { TRPCClientError } from '@trpc/client';

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
  const links: TRPCLink<AppRouter>[] = [];
  if (getToken) links.push(refreshOnUnauthorized<AppRouter>(refresher(getToken)));
  links.push(
    httpBatchLink<AppRouter>({
      url,
      headers: async ({ opList }) => {
        // A retried call brings the refreshed token; the others in its batch may as well use it too.
        const token = opList.map(sentToken).find((t) => t !== undefined) ?? (getToken ? await getToken({ forceRefresh: false }) : fixed);
        if (token === undefined) return {};
        if (getToken) for (const op of opList) op.context[TOKEN_KEY] = token;
        return { authorization: `Bearer ${token}` };
      },
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
