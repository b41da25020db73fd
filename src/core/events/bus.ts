// The event bus that carries each user's live events (server-sent events of /playback/events) to the
// clients connected to any instance: in-process in embedded mode (one process), Redis pub/sub in
// services mode (one channel per user, subscribed while an instance has a client of that user).
// Delivery is at most once on the bus; a client that missed events gets them from the replay log
// (stream-log.ts) when it reconnects with Last-Event-ID.
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';

/** One event of a user's stream; `id` is its position in the replay log (the SSE id). */
export type StreamEvent = { id: string; userId: string; name: string; data: Record<string, unknown> };

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
};

export class RedisEventBus implements EventBus {
  readonly mode = 'redis' as const;
  readonly #listeners = new LocalListeners();
  readonly #opts: RedisEventBusOptions;
  /** SUBSCRIBE commands not yet confirmed, by user: a second listener waits for the same one. */
  readonly #pending = new Map<string, Promise<unknown>>();
  #closed = false;

  constructor(opts: RedisEventBusOptions) {
    this.#opts = opts;
    opts.subscriber.on('message', (channel: string, message: string) => {
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
    opts.subscriber.on('close', () => {
      if (this.#listeners.byUser.size) opts.log.warn('event bus subscription lost: open streams ended');
      this.#listeners.closeAll();
    });
    opts.subscriber.on('error', (err: Error) => opts.log.debug({ err }, 'event bus subscriber error'));
  }

  #channel(userId: string): string {
    return `${this.#opts.prefix}:events:${userId}`;
  }

  async publish(events: StreamEvent[]): Promise<void> {
    for (const e of events) {
      try {
        await this.#opts.publisher.publish(this.#channel(e.userId), JSON.stringify(e));
      } catch (err) {
        // Redis is away: this instance's clients still get it; clients on other instances get it from the
        // replay log on their next reconnect (their streams end when their subscriber connection drops).
        this.#opts.log.warn({ err }, 'event bus publish failed: delivered to this instance only');
        this.#listeners.deliver(e, this.#opts.log);
      }
    }
  }

  async subscribe(userId: string, listener: StreamListener): Promise<() => void> {
    if (this.#closed) throw new Error('event bus closed');
    if (this.#listeners.add(userId, listener)) {
      const subscribing = this.#opts.subscriber.subscribe(this.#channel(userId));
      this.#pending.set(userId, subscribing);
      subscribing.finally(() => this.#pending.get(userId) === subscribing && this.#pending.delete(userId)).catch(() => {});
    }
    try {
      await this.#pending.get(userId);
    } catch (err) {
      this.#listeners.remove(userId, listener);
      throw err;
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

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.closeAll();
    this.#opts.subscriber.disconnect();
  }
}
