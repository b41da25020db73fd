// A live event stream (core/events/live-stream.ts) as a tRPC subscription: an async generator of
// `tracked(id, event)`, which tRPC writes as server-sent events with the event's id, so the client's
// reconnection resumes from `lastEventId` with the same replay as GET /playback/events. A new client
// first gets `stream.open`, carrying where the stream starts (the REST stream's `id:` line): a client
// that reconnects before any event still resumes from there. How the stream ends decides what the
// client does: a revoked token is a non-retryable `invalid_token` (the client refreshes its token and
// subscribes again, or stops); shutdown, lost delivery or a client too far behind are a retryable error
// (503), after which the client's EventSource reconnects with the last id; tRPC's own `maxDurationMs`
// ends the response at the stream's lifetime and the client reconnects the same way.
import { tracked, type TrackedEnvelope } from '@trpc/server';
import { ApiError } from '../core/errors.ts';
import type { StreamEvent } from '../core/events/bus.ts';
import type { OpenStream, OpenStreamRequest, StreamSink } from '../core/events/live-stream.ts';
import { toTrpcError } from './errors.ts';

/** One message of the subscription: an event as GET /playback/events names it, or the stream's start. */
type LiveEvent = { name: string; data: Record<string, unknown> };

/** Events not yet taken by tRPC's writer, at most (a client this far behind reconnects and replays). */
const MAX_QUEUED = 1000;

/** A sink that queues what the stream decides, read by the generator below. */
class QueueSink implements StreamSink {
  readonly #queue: TrackedEnvelope<LiveEvent>[] = [];
  #end: Error | 'done' | null = null;
  #wake: (() => void) | null = null;
  #behind = false;

  open(start: string, resumed: boolean): void {
    if (!resumed) this.#push(tracked(start, { name: 'stream.open', data: {} }));
  }

  send(e: StreamEvent): boolean {
    this.#push(tracked(e.id, { name: e.name, data: e.data }));
    this.#behind = this.#queue.length > MAX_QUEUED;
    return !this.#behind;
  }

  end(how: 'gone' | 'close' | 'resume', reason: string): void {
    // Too far behind: end so the client reconnects and replays (a plain end would stop its subscription).
    if (this.#behind) this.#end = toTrpcError(new ApiError('server_error', 'The stream ended: the client fell too far behind; reconnect', undefined, 503));
    else if (how === 'gone') this.#end = 'done';
    else if (how === 'close') this.#end = toTrpcError(new ApiError('invalid_token', `The stream ended: ${reason}`));
    else this.#end = toTrpcError(new ApiError('server_error', `The stream ended: ${reason}; reconnect`, undefined, 503));
    this.#wakeUp();
  }

  #push(item: TrackedEnvelope<LiveEvent>): void {
    this.#queue.push(item);
    this.#wakeUp();
  }

  #wakeUp(): void {
    this.#wake?.();
    this.#wake = null;
  }

  async *drain(): AsyncGenerator<TrackedEnvelope<LiveEvent>, void> {
    for (;;) {
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#end === 'done') return;
      if (this.#end) throw this.#end;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

/** The events of the stream `open` opens, until the client leaves (`signal`) or the stream ends. */
export async function* subscriptionEvents(
  open: OpenStream,
  req: Omit<OpenStreamRequest, 'sink'>,
  signal: AbortSignal | undefined,
  // Spelled out, not LiveEvent: the client package's declarations print this type and know no server alias.
): AsyncGenerator<TrackedEnvelope<{ name: string; data: Record<string, unknown> }>, void> {
  const sink = new QueueSink();
  let stream;
  try {
    stream = await open({ ...req, sink });
  } catch (err) {
    throw err instanceof ApiError ? toTrpcError(err) : err;
  }
  const leave = () => stream.end();
  if (signal?.aborted) leave();
  signal?.addEventListener('abort', leave, { once: true });
  try {
    yield* sink.drain();
  } finally {
    signal?.removeEventListener('abort', leave);
    stream.end();
  }
}
