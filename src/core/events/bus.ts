// The event bus that carries each user's live events (server-sent events of /playback/events) to the
// clients connected to any instance: in-process in embedded mode (one process), Redis pub/sub in
// services mode (one channel per user, subscribed while an instance has a client of that user).
// Delivery is at most once on the bus; a client that missed events gets them from the replay log
// (stream-log.ts) when it reconnects with Last-Event-ID.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';

/**
 * One event of a user's stream; `id` is its position in the replay log (the SSE id), `prev` the id of
 * the user's event before it in the log (null: none in the log), which lets a stream see a gap.
 */
export type StreamEvent = { id: string; prev: string | null; userId: string; name: string; data: Record<string, unknown> };

export type StreamListener = {
  onEvent(event: StreamEvent): void;
  /** The bus closed or lost its subscription: the listener should end its stream (clients reconnect and replay). */
  onClose(): void;
};

export interface EventBus {
  readonly mode: 'memory' | 'redis';
  /** Delivers committed events to every listener of their users, on every instance. Never throws. */
  publish(events: StreamEvent[]): Promise<void>;
  /** Resolves once events published from now on reach `listener`; returns the unsubscribe function. */
  subscribe(userId: string, listener: StreamListener): Promise<() => void>;
  /** Listeners (open streams) on this instance. */
  listenerCount(): number;
  /** Resolves once live delivery works, or after `timeoutMs` if it does not (start-up never waits longer). */
  whenDelivering(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Listeners of this instance, by user. */
class LocalListeners {
  readonly byUser = new Map<string, Set<StreamListener>>();

  add(userId: string, listener: StreamListener): boolean {
    const set = this.byUser.get(userId) ?? new Set();
    const first = set.size === 0;
    set.add(listener);
    this.byUser.set(userId, set);
    return first;
  }

  /** True when it was the user's last listener here. */
  remove(userId: string, listener: StreamListener): boolean {
    const set = this.byUser.get(userId);
    if (!set?.delete(listener)) return false;
    if (set.size > 0) return false;
    this.byUser.delete(userId);
    return true;
  }

  deliver(event: StreamEvent, log: Logger): void {
    for (const listener of this.byUser.get(event.userId) ?? []) {
      try {
        listener.onEvent(event);
      } catch (err) {
        log.error({ err }, 'event listener failed');
      }
    }
  }

  count(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }

  closeAll(): void {
    const all = [...this.byUser.values()].flatMap((s) => [...s]);
    this.byUser.clear();
    for (const listener of all) listener.onClose();
  }
}

export class MemoryEventBus implements EventBus {
  readonly mode = 'memory' as const;
  readonly #listeners = new LocalListeners();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  async publish(events: StreamEvent[]): Promise<void> {
    for (const e of events) this.#listeners.deliver(e, this.#log);
  }

  async subscribe(userId: string, listener: StreamListener): Promise<() => void> {
    this.#listeners.add(userId, listener);
    return () => void this.#listeners.remove(userId, listener);
  }

  listenerCount(): number {
    return this.#listeners.count();
  }

  async whenDelivering(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.#listeners.closeAll();
  }
}

export type RedisEventBusOptions = {
  /** The instance's command connection (publishes). */
  publisher: Redis;
  /** A connection of its own: a subscribed Redis connection takes no other commands. */
  subscriber: Redis;
  prefix: string;
  log: Logger;
  /** How often the instance checks its own subscription (a heartbeat through Redis); tests shorten it. */
  heartbeatMs?: number;
  /** A subscription that brought no heartbeat for this long is stalled: its streams end. */
  stallMs?: number;
};

/** Live events cannot be delivered right now (Redis is away or stalled): a stream must not open. */
class EventBusUnavailable extends Error {}

/** At most this many events wait to be published again after Redis comes back (the oldest go first). */
const REPUBLISH_MAX = 10_000;

/**
 * Redis pub/sub, watched. Pub/sub drops messages silently while a connection is down or Redis hangs,
 * so the instance publishes a heartbeat on a channel of its own and expects to hear it back: when it
 * does not (or a publish fails), delivery is in doubt and every open stream here ends, so its client
 * reconnects and replays from the log. Until a fresh heartbeat comes back, new streams are refused.
 * Events whose publish failed are published again once Redis answers, for the other instances'
 * streams that did not notice the outage (a stream skips what it already has).
 */
export class RedisEventBus implements EventBus {
  readonly mode = 'redis' as const;
  readonly #listeners = new LocalListeners();
  readonly #opts: RedisEventBusOptions;
  /** SUBSCRIBE commands not yet confirmed, by user: a second listener waits for the same one. */
  readonly #pending = new Map<string, Promise<unknown>>();
  readonly #beatChannel: string;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #republish: StreamEvent[] = [];
  /** When this instance last heard its own heartbeat come back (ms since epoch); 0: not yet. */
  #heardAt = 0;
  #delivering = false;
  /** Called when delivery starts (or starts again). */
  readonly #onDelivering = new Set<() => void>();
  #closed = false;

  constructor(opts: RedisEventBusOptions) {
    this.#opts = opts;
    this.#beatChannel = `${opts.prefix}:events:heartbeat:${randomUUID()}`;
    const stallMs = opts.stallMs ?? 3_000;
    opts.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#beatChannel) return this.#heard(Number(message), stallMs);
      let event: StreamEvent;
      try {
        event = JSON.parse(message) as StreamEvent;
      } catch {
        return;
      }
      if (channel === this.#channel(event.userId)) this.#listeners.deliver(event, opts.log);
    });
    // Events published while the subscription is down are lost on the bus: end the streams, so their
    // clients reconnect with Last-Event-ID and get them from the replay log.
    opts.subscriber.on('close', () => this.#inDoubt('event bus subscription lost'));
    opts.subscriber.on('error', (err: Error) => opts.log.debug({ err }, 'event bus subscriber error'));
    // ioredis subscribes again after every reconnect, this channel included. The first beat goes as
    // soon as the subscription stands, so a new instance delivers without waiting a whole interval.
    opts.subscriber.subscribe(this.#beatChannel).then(() => this.#beat(stallMs), () => {});
    // The publisher may connect after that (it queues nothing while offline): it beats once ready too.
    opts.publisher.on('ready', () => void this.#beat(stallMs));
    this.#timer = setInterval(() => void this.#beat(stallMs), opts.heartbeatMs ?? 1_000);
    this.#timer.unref();
  }

  #channel(userId: string): string {
    return `${this.#opts.prefix}:events:${userId}`;
  }

  /** A heartbeat came back: fresh ones (sent within stallMs) say delivery works again. */
  #heard(sentAt: number, stallMs: number): void {
    if (!(Date.now() - sentAt < stallMs)) return;
    this.#heardAt = Date.now();
    if (!this.#delivering && !this.#closed) {
      this.#delivering = true;
      this.#opts.log.info('event bus delivering');
      for (const f of this.#onDelivering) f();
    }
  }

  /** Delivery may have missed events: end every stream here and refuse new ones until a heartbeat returns. */
  #inDoubt(reason: string): void {
    if (this.#delivering) this.#opts.log.warn({ streams: this.#listeners.count() }, `${reason}: open streams ended`);
    this.#delivering = false;
    this.#heardAt = 0;
    const channels = [...this.#listeners.byUser.keys()].map((u) => this.#channel(u));
    this.#listeners.closeAll();
    // Their streams are gone; the channels go too (ioredis would otherwise subscribe them again on reconnect).
    if (channels.length && !this.#closed) this.#opts.subscriber.unsubscribe(...channels).catch(() => {});
  }

  async #beat(stallMs: number): Promise<void> {
    if (this.#delivering && Date.now() - this.#heardAt > stallMs) this.#inDoubt('event bus stalled');
    try {
      await this.#opts.publisher.publish(this.#beatChannel, String(Date.now()));
    } catch {
      if (this.#delivering) this.#inDoubt('event bus heartbeat failed');
      return;
    }
    await this.#publishAgain();
  }

  async #publishAgain(): Promise<void> {
    while (this.#republish.length) {
      const e = this.#republish[0]!;
      try {
        await this.#opts.publisher.publish(this.#channel(e.userId), JSON.stringify(e));
      } catch {
        return;
      }
      this.#republish.shift();
    }
  }

  async publish(events: StreamEvent[]): Promise<void> {
    for (const [i, e] of events.entries()) {
      try {
        await this.#opts.publisher.publish(this.#channel(e.userId), JSON.stringify(e));
      } catch (err) {
        // Redis is away or hung: nobody may have it. This instance's streams end now and replay; the
        // events go out again when Redis answers, for streams elsewhere that did not see the outage.
        this.#opts.log.warn({ err }, 'event bus publish failed: published again when Redis answers');
        this.#republish.push(...events.slice(i));
        this.#republish.splice(0, Math.max(0, this.#republish.length - REPUBLISH_MAX));
        this.#inDoubt('event bus publish failed');
        return;
      }
    }
  }

  async subscribe(userId: string, listener: StreamListener): Promise<() => void> {
    if (this.#closed) throw new EventBusUnavailable('event bus closed');
    if (!this.#delivering || this.#opts.subscriber.status !== 'ready') throw new EventBusUnavailable('live events are not being delivered');
    if (this.#listeners.add(userId, listener)) {
      const subscribing = this.#opts.subscriber.subscribe(this.#channel(userId));
      this.#pending.set(userId, subscribing);
      subscribing.finally(() => this.#pending.get(userId) === subscribing && this.#pending.delete(userId)).catch(() => {});
    }
    try {
      await this.#pending.get(userId);
    } catch (err) {
      this.#listeners.remove(userId, listener);
      throw new EventBusUnavailable('subscription failed', { cause: err });
    }
    return () => {
      if (this.#listeners.remove(userId, listener) && !this.#closed) {
        this.#opts.subscriber.unsubscribe(this.#channel(userId)).catch(() => {});
      }
    };
  }

  listenerCount(): number {
    return this.#listeners.count();
  }

  /** Whether live delivery works now (false while Redis is away or stalled). */
  get delivering(): boolean {
    return this.#delivering;
  }

  whenDelivering(timeoutMs: number): Promise<boolean> {
    if (this.#delivering) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#onDelivering.delete(started);
        resolve(ok);
      };
      const started = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#onDelivering.add(started);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#delivering = false;
    clearInterval(this.#timer);
    this.#listeners.closeAll();
    this.#opts.subscriber.disconnect();
  }
}
