// A tRPC link that answers a 401 once per call: it asks for a fresh access token and sends the call again
// with it. Access tokens live an hour and can be revoked at any time, so a long-running app meets 401s
// in normal operation; a second 401 right after a refresh is a real failure and goes to the caller. A
// subscription gets one refresh per connection (it may outlive many tokens): its new connection resumes
// after the last event it received (`lastEventId`), as tRPC's own reconnection does.
import { isTRPCClientError, TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyTRPCRouter } from '@trpc/server';
import { observable, type Unsubscribable } from '@trpc/server/observable';

/** Where a call's operation context records the access token its request carried (a name no app uses). */
export const TOKEN_KEY = '@media-tracking/client:accessToken';

/** The token an operation's request carried (set by the HTTP link's headers callback), if any. */
export function sentToken(op: Operation): string | undefined {
  const token = op.context[TOKEN_KEY];
  return typeof token === 'string' ? token : undefined;
}

/** A 401: `UNAUTHORIZED` in the error's data (the service writes its bearer check's 401 in tRPC's shape too), or the HTTP status. */
export function isUnauthorized(err: unknown): boolean {
  if (!isTRPCClientError(err)) return false;
  const data = err.data as { code?: unknown; httpStatus?: unknown } | null | undefined;
  const response = err.meta?.response as { status?: unknown } | undefined;
  return data?.code === 'UNAUTHORIZED' || data?.httpStatus === 401 || response?.status === 401;
}

/**
 * `refresh(rejected)` returns a new token to replace `rejected`. The link gives each call a context of
 * its own, so the headers callback can note the token it sent there and a retry can carry the new one.
 */
export function refreshOnUnauthorized<TRouter extends AnyTRPCRouter>(refresh: (rejected: string | undefined) => Promise<string>): TRPCLink<TRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) => {
        let current: Unsubscribable | undefined;
        let closed = false;
        let lastEventId: string | undefined;
        const send = (attempt: Operation, retried: boolean) => {
          current = next(attempt).subscribe({
            next: (value) => {
              const result = value.result as { type?: string; id?: string };
              if (result.type === 'started') retried = false;
              if ((result.type === undefined || result.type === 'data') && result.id) lastEventId = result.id;
              observer.next(value);
            },
            complete: () => observer.complete(),
            error: (err) => {
              if (retried || !isUnauthorized(err)) return observer.error(err);
              refresh(sentToken(attempt)).then(
                (token) => {
                  const input = lastEventId === undefined ? op.input : { ...(op.input as object | undefined), lastEventId };
                  if (!closed) send({ ...op, input, context: { ...op.context, [TOKEN_KEY]: token } }, true);
                },
                (cause: unknown) => observer.error(TRPCClientError.from(cause instanceof Error ? cause : new Error(String(cause)))),
              );
            },
          });
        };
        send({ ...op, context: { ...op.context } }, false);
        return () => {
          closed = true;
          current?.unsubscribe();
        };
      });
}
