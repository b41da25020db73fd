// One open event stream, whatever carries it to the client (the REST route's server-sent events, the
// /trpc subscription): what it has sent, and how live events join the log. The stream subscribes before
// it reads the log, so nothing falls between; live events wait while the log is read. Each live event
// goes through the stream's cursor (cursor.ts): sent once, in id order; one whose predecessor never came
// is fetched with what it missed from the log. When the bus loses delivery the stream ends asking its
// client to come back soon: it reconnects with the last event id and replays from the log. Every stream
// tells its client where it starts, so even a client that got no event yet reconnects from the right
// place. An event that needs a scope the stream's token lacks (scopes.ts) moves the stream's position but
// is not sent. The transport writes what the stream decides through a StreamSink.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../log.ts';
import { sseConnectionsOpen } from '../metrics/registry.ts';
import { StreamCursor } from './cursor.ts';
import type { EventBus, StreamEvent } from './bus.ts';
import { streamSends } from './scopes.ts';
import { replayStreamEvents, streamStart } from './stream-log.ts';

/** Timing of every stream, whichever transport carries it (tests shorten them). */
export const SSE_TIMING = {
  /** A keep-alive this often, so proxies and clients see a live connection. */
  heartbeatMs: 15_000,
  /** A stream ends after this long (the life of an access token): the client reconnects with a current token. */
  maxStreamMs: 60 * 60 * 1000,
  /** EventSource reconnection delay the stream asks for (`retry:`). */
  retryMs: 3_000,
  /** The reconnection delay of a stream ended by shutdown or lost delivery: the client comes back at once. */
  resumeRetryMs: 1_000,
};

/** How an event id is written (a client's Last-Event-ID or `lastEventId` must be one). */
export const EVENT_ID_PATTERN = /^\d{1,18}$/;

/** The connection-attempt limits of a stream, counted per token and per user whichever transport opens it. */
export const STREAM_LIMITS = ['events-token', 'events-user'] as const;

/** The stream could not start: live delivery is down (nothing was written to the client). */
export class StreamUnavailable extends Error {}

/**
 * How a stream ended: `gone` (the client left, or the stream reached its lifetime), `close` (its token
 * no longer stands: no quick reconnection), `resume` (shutdown, lost delivery, a gap: reconnect at once).
 */
export type StreamEnd = 'gone' | 'close' | 'resume';

/** What a transport does with a stream's decisions. */
export type StreamSink = {
  /**
   * The stream is open and starts after `start` ('0': the user has no event yet); `resumed`: the client
   * said where it was. `stop` ends the stream when the client goes away or the transport ends it.
   */
  open(start: string, resumed: boolean, stop: () => void): void;
  /** One event for the client; false when the client is too far behind (the stream ends: it reconnects and replays). */
  send(e: StreamEvent): boolean;
  /** The stream ended, and why (`reason` is for the client to read). */
  end(how: StreamEnd, reason: string): void;
};

export type StreamDeps = { orm: MikroORM; log: Logger; events: EventBus; requestId: string | undefined };

/** What a transport asks for: a stream of one user's events, bound to the access token it was opened with. */
export type OpenStreamRequest = {
  userId: string;
  /** The token's scopes: events that need one it lacks are not sent (scopes.ts). */
  scopes: ReadonlySet<string>;
  /** The stored key of the access token behind the stream (for a ticket, the token that asked for it). */
  tokenKey: string;
  /** The last event id the client has; null for a new client (live events only, no replay). */
  after: string | null;
  requestId: string | undefined;
  sink: StreamSink;
};

/**
 * Opens a stream the way every transport does (the token's standing, the stream, its watch and the
 * shutdown): an open stream, or an ApiError (`invalid_token`; 503 `server_error` while live delivery is down).
 */
export type OpenStream = (req: OpenStreamRequest) => Promise<LiveStream>;

export class LiveStream {
  readonly #sink: StreamSink;
  readonly #deps: StreamDeps;
  readonly #userId: string;
  readonly #scopes: ReadonlySet<string>;
  #cursor = new StreamCursor(null);
  /** Live events that came while the log was being read; null when events go straight out. */
  #held: StreamEvent[] | null = [];
  #open = false;
  /** The bus gave up on delivery before the stream opened. */
  #lost = false;
  #ended = false;
  #unsubscribe = () => {};
  readonly #cleanups: (() => void)[] = [];

  constructor(sink: StreamSink, who: { userId: string; scopes: ReadonlySet<string> }, deps: StreamDeps) {
    this.#sink = sink;
    this.#userId = who.userId;
    this.#scopes = who.scopes;
    this.#deps = deps;
  }

  /**
   * Subscribes, reads where the stream starts (after `after`, or the user's newest event), then opens the
   * sink and sends the missed events and what came meanwhile. Throws StreamUnavailable (nothing sent)
   * when the bus cannot deliver; other errors before the sink opens are thrown as they are.
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
    if (this.#ended) return this.#unsubscribe();
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
    // The client left while the log was read.
    if (this.#ended) return this.#unsubscribe();
    this.#cursor = new StreamCursor(start);
    this.#open = true;
    sseConnectionsOpen.inc();
    this.#sink.open(start ?? '0', after !== null, () => this.end());
    for (const e of missed) this.#send(e);
    this.#release();
  }

  /** Runs `f` when the stream ends (at once if it already has). */
  onEnd(f: () => void): void {
    if (this.#ended) f();
    else this.#cleanups.push(f);
  }

  /** The client went away, or the stream reached its lifetime. */
  end(): void {
    this.#finish('gone', '');
  }

  /** Ends the stream saying why, with no quick reconnection (the token was revoked). */
  close(reason: string): void {
    this.#finish('close', reason);
  }

  /** Ends the stream asking the client to reconnect at once (shutdown, lost delivery, a gap). */
  resume(reason: string): void {
    this.#finish('resume', reason);
  }

  #finish(how: StreamEnd, reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const f of this.#cleanups) f();
    this.#unsubscribe();
    if (this.#open) sseConnectionsOpen.dec();
    this.#sink.end(how, reason);
  }

  #send(e: StreamEvent): void {
    if (this.#ended) return;
    this.#cursor.sent(e.id);
    // Passed over, not missed: a later event naming it as its predecessor is no gap.
    if (!streamSends(this.#scopes, e.name)) return;
    if (!this.#sink.send(e)) this.end();
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
