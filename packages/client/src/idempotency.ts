// Sync writes carry an Idempotency-Key header: the service applies a key's batch once and answers a
// repeat of it with the stored result (`idempotency_replayed: true`). The key belongs to the call, not to
// an HTTP request: it is made once per call (unless the caller gives one, `{ context: { idempotencyKey } }`)
// and every retry of that call sends the same key: the refresh after a 401, and the retries below of a
// request still in progress (409 `request_in_progress`) or one whose answer never came (the network), so a
// retried write is applied at most once. A keyed call goes in an HTTP request of its own (a batch has one
// set of headers for all its calls).
import { isTRPCClientError, retryLink, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyTRPCRouter } from '@trpc/server';

/**
 * The call options that send `key` as a sync write's Idempotency-Key (8 to 200 characters), e.g. a key the
 * app stored with a batch it may send again after a restart: `mutate({ items }, withIdempotencyKey(key))`.
 * Without it, each call gets a key of its own.
 */
export function withIdempotencyKey(key: string): { context: { idempotencyKey: string } } {
  return { context: { idempotencyKey: key } };
}

/** The procedures that take an Idempotency-Key: the bulk sync writes. */
const KEYED_PREFIX = 'platform.sync.';

/** Attempts of one keyed call at most (the first included), and the wait before each retry. */
const MAX_ATTEMPTS = 4;
const retryDelayMs = (attempt: number): number => 500 * 2 ** (attempt - 1);

/** Whether `op` is sent with an Idempotency-Key (in a request of its own). */
export function isKeyed(op: Operation): boolean {
  return op.type === 'mutation' && typeof op.context.idempotencyKey === 'string';
}

/** Gives each sync write its key, once per call: `crypto.randomUUID()` unless the caller gave one. */
function keyEachCall<TRouter extends AnyTRPCRouter>(): TRPCLink<TRouter> {
  return () =>
    ({ op, next }) => {
      const needsKey = op.type === 'mutation' && op.path.startsWith(KEYED_PREFIX) && typeof op.context.idempotencyKey !== 'string';
      return next(needsKey ? { ...op, context: { ...op.context, idempotencyKey: crypto.randomUUID() } } : op);
    };
}

/** A keyed call worth sending again with its key: the first request still runs, or no answer came. */
function worthRetrying(err: unknown): boolean {
  if (!isTRPCClientError(err)) return false;
  const data = err.data as { error?: unknown } | null | undefined;
  return data?.error === 'request_in_progress' || (data == null && err.meta?.response === undefined);
}

/** The links every call goes through first: keys, then bounded retries of keyed calls. */
export function idempotencyLinks<TRouter extends AnyTRPCRouter>(): TRPCLink<TRouter>[] {
  return [keyEachCall<TRouter>(), retryLink<TRouter>({ retry: ({ op, error, attempts }) => isKeyed(op) && attempts < MAX_ATTEMPTS && worthRetrying(error), retryDelayMs })];
}
