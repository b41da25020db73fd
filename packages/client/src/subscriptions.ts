// Subscriptions (the live events, `client.platform.playback.events.subscribe`) over server-sent events,
// through tRPC's httpSubscriptionLink. The bearer token goes in the Authorization header, never in the
// URL (tRPC's connectionParams would put it there, and URLs are written to access logs): neither
// browsers' EventSource nor Node's can send a header, so the `eventsource` package's EventSource runs
// the connection with a fetch that adds it. A connection the service refuses (a rejected token, a missing
// scope) ends the subscription with the service's error, as a query's would, so the refresh on 401 works
// the same: a new token, and a new connection resuming after the last event received.
import { httpSubscriptionLink, TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyTRPCRouter } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { EventSource, type FetchLike } from 'eventsource';
import type { AppRouter } from './app-router.js';
import { sentToken, TOKEN_KEY } from './refresh-link.js';

/** Where a subscription's context records the answer of a refused connection (a name no app uses). */
const REFUSED_KEY = '@media-tracking/client:refused';

type Refused = { status: number; body: unknown };

/** The service's error body (tRPC's shape, which /trpc answers with before any procedure runs), or null. */
async function errorBody(res: { json(): Promise<unknown> }): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return null;
  }
}

/** A fetch for the EventSource of `op`: the token in the header, and a refused connection noted on `op`. */
function fetchFor(op: Operation, currentToken: () => Promise<string | undefined>): FetchLike {
  return async (url, init) => {
    // The token this subscription connected with (or the refreshed one it was sent again with): the
    // EventSource's own reconnections reuse it until the service refuses it.
    const token = sentToken(op) ?? (await currentToken());
    if (token !== undefined) op.context[TOKEN_KEY] = token;
    const res = await fetch(url, { ...init, headers: { ...init.headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } });
    if (res.ok) delete op.context[REFUSED_KEY];
    else op.context[REFUSED_KEY] = { status: res.status, body: await errorBody(res.clone()) } satisfies Refused;
    return res;
  };
}

/** The refused connection's error as the service wrote it, in place of the EventSource's bare error event. */
function refusedConnections<TRouter extends AnyTRPCRouter>(): TRPCLink<TRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) =>
        next(op).subscribe({
          next: (value) => observer.next(value),
          complete: () => observer.complete(),
          error: (err) => {
            const refused = op.context[REFUSED_KEY] as Refused | undefined;
            if (!refused) return observer.error(err);
            const meta = { response: { status: refused.status } };
            const body = refused.body as { error?: { message?: unknown; code?: unknown } } | null;
            const shaped = typeof body?.error?.message === 'string' && typeof body.error.code === 'number';
            observer.error(shaped ? TRPCClientError.from(body as never, { meta }) : TRPCClientError.from(new Error(`The service refused the subscription (HTTP ${refused.status})`), { meta }));
          },
        }),
      );
}

/** The links a subscription goes through: its refused connections' errors, then the SSE link. */
export function subscriptionLinks(url: string, currentToken: () => Promise<string | undefined>): TRPCLink<AppRouter>[] {
  return [
    refusedConnections<AppRouter>(),
    httpSubscriptionLink<AppRouter, typeof EventSource>({
      url,
      EventSource,
      eventSourceOptions: ({ op }) => ({ fetch: fetchFor(op, currentToken) }),
    }),
  ];
}
