// One open event stream (GET /playback/events): what it has sent, and how live events join the log.
// The stream subscribes before it reads the log, so nothing falls between; live events wait while the
// log is read. Each live event goes through the stream's cursor (core/events/cursor.ts): sent once, in
// id order; one whose predecessor never came is fetched with what it missed from the log. When the bus
// loses delivery the stream ends with a short reconnection delay: the client comes back with
// Last-Event-ID and replays from the log. Every stream tells its client where it starts (an `id:`
// line), so even a client that got no event yet reconnects from the right place. A stream lives no
// longer than its token stands: stream-watch.ts ends it (close()) within about a second of a revocation,
// whichever instance or process made it; its client's reconnection then gets 401.
import type { Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { StreamCursor } from '../core/events/cursor.ts';
import type { EventBus, StreamEvent } from '../core/events/bus.ts';
import { replayStreamEvents, streamStart } from '../core/events/stream-log.ts';
import type { Logger } from '../core/log.ts';
import { sseConnectionsOpen } from '../core/metrics/registry.ts';

/** Timing of every stream (tests shorten the heartbeat). */
export const SSE_TIMING = {
  /** A comment line this often, so proxies and clients see a live connection. */
  heartbeatMs: 15_000,
  /** A stream ends after this long (the life of an access token): the client reconnects with a current token or ticket. */
  maxStreamMs: 60 * 60 * 1000,
  /** EventSource reconnection delay the stream asks for (`retry:`). */
  retryMs: 3_000,
  /** The reconnection delay of a stream ended by shutdown or lost delivery: the client comes back at once. */
  resumeRetryMs: 1_000,
};
/** A client this far behind (bytes not yet sent) is dropped; it reconnects and replays. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** The stream could not start: live delivery is down (nothing was written to the response). */
export class StreamUnavailable extends Error {}

function format(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

export type StreamDeps = { orm: MikroORM; log: Logger; events: EventBus; requestId: string | undefined };

export class LiveStream {
  readonly #res: Response;
  readonly #deps: StreamDeps;
  readonly #userId: string;
  #cursor = new StreamCursor(null);
  /** Live events that came while the log was being read; null when events go straight out. */
  #held: StreamEvent[] | null = [];
  #open = false;
  /** The bus gave up on delivery before the stream opened. */
  #lost = false;
  #ended = false;
  #unsubscribe = () => {};
  readonly #cleanups: (() => void)[] = [];

  constructor(res: Response, userId: string, deps: StreamDeps) {
    this.#res = res;
    this.#userId = userId;
    this.#deps = deps;
  }

  /**
   * Subscribes, reads where the stream starts (after `after`, or the user's newest event), then writes
   * the head, the missed events and what came meanwhile. Throws StreamUnavailable (nothing written)
   * when the bus cannot deliver; other errors before the head are thrown as they are.
   */
  async open(after: string | null): Promise<void> {
    try {
      this.#unsubscribe = await this.#deps.events.subscribe(this.#userId, {
        onEvent: (e) => this.#deliver(e),
        onClose: () => (this.#open ? this.resume('live delivery interrupted') : (this.#lost = true)),
      });
    } catch (err) {
      throw new StreamUnavailable('subscription failed', { cause: err });
    }
    let missed: StreamEvent[];
    let start: string | null;
    try {
      const em = this.#deps.orm.em.fork();
      missed = after === null ? [] : await replayStreamEvents(em, this.#userId, after);
      start = after ?? (await streamStart(em, this.#userId));
    } catch (err) {
      this.#unsubscribe();
      throw err;
    }
    if (this.#lost) {
      this.#unsubscribe();
      throw new StreamUnavailable('delivery lost while the stream opened');
    }
    this.#cursor = new StreamCursor(start);
    const res = this.#res;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    // The id line: a client that reconnects before any event still says where it was (an empty log is 0).
    res.write(`retry: ${SSE_TIMING.retryMs}\n${after === null ? `id: ${start ?? '0'}\n` : ''}: connected\n\n`);
    this.#open = true;
    sseConnectionsOpen.inc();
    // The response's close: the client went away (the request's own close fires once its body is read).
    res.on('close', () => this.end());
    for (const e of missed) this.#send(e);
    this.#release();
    if (this.#ended) return;
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), SSE_TIMING.heartbeatMs);
    const lifetime = setTimeout(() => this.end(), SSE_TIMING.maxStreamMs);
    this.#cleanups.push(() => clearInterval(heartbeat), () => clearTimeout(lifetime));
  }

  /** Runs `f` when the stream ends (at once if it already has). */
  onEnd(f: () => void): void {
    if (this.#ended) f();
    else this.#cleanups.push(f);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const f of this.#cleanups) f();
    this.#unsubscribe();
    if (this.#open) sseConnectionsOpen.dec();
    this.#res.end();
  }

  /** Ends the stream with a last comment saying why, and no shorter reconnection delay (the token was revoked). */
  close(reason: string): void {
    if (this.#ended) return;
    this.#res.write(`: ${reason}\n\n`);
    this.end();
  }

  /** Ends the stream with a short reconnection delay and a reason (shutdown, lost delivery, a gap). */
  resume(reason: string): void {
    if (this.#ended) return;
    this.#res.write(`retry: ${SSE_TIMING.resumeRetryMs}\n: ${reason}; reconnect\n\n`);
    this.end();
  }

  #send(e: StreamEvent): void {
    if (this.#ended) return;
    this.#cursor.sent(e.id);
    this.#res.write(format(e));
    if (this.#res.writableLength > MAX_BUFFERED_BYTES) this.end();
  }

  #deliver(e: StreamEvent): void {
    if (this.#ended) return;
    if (this.#held) {
      this.#held.push(e);
      return;
    }
    const verdict = this.#cursor.accept(e);
    if (verdict === 'send') this.#send(e);
    else if (verdict === 'gap') void this.#fill(e);
  }

  /** Lets the held events through the cursor; a gap that remains after a fill ends the stream. */
  #release(afterFill = false): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const e of held.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))) {
      const verdict = this.#cursor.accept(e);
      if (verdict === 'send') this.#send(e);
      else if (verdict === 'gap') {
        if (afterFill) return this.resume('events missing from the log');
        this.#held = held.slice(held.indexOf(e));
        void this.#fill(null);
        return;
      }
    }
  }

  /** A live event came before one it follows: read what the stream missed from the log, then go on. */
  async #fill(first: StreamEvent | null): Promise<void> {
    this.#held = first ? [first] : (this.#held ?? []);
    try {
      const missed = await replayStreamEvents(this.#deps.orm.em.fork(), this.#userId, this.#cursor.last ?? '0');
      for (const e of missed) if (this.#cursor.last === null || BigInt(e.id) > BigInt(this.#cursor.last)) this.#send(e);
    } catch (err) {
      this.#deps.log.error({ request_id: this.#deps.requestId, err }, 'event stream replay failed');
      this.resume('live delivery interrupted');
      return;
    }
    this.#release(true);
  }
}
