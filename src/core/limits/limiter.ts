// Counts requests in the buckets of the limits table: in Redis when the service has one (shared by
// every instance), in memory otherwise. When Redis stops answering, each instance keeps limiting from
// its own memory (logged once, counted) and goes back to Redis when it returns; a request never fails
// because Redis is down.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../log.ts';
import { rateLimitRejections } from '../metrics/registry.ts';
import type { Bucket, Limit } from './table.ts';

export type Decision = {
  allowed: boolean;
  /** The most constraining bucket: the rejecting one, or the one with the fewest requests left. */
  bucket: string;
  limit: number;
  remaining: number;
  /** Unix seconds when that bucket's window resets. */
  reset: number;
  /** Seconds to wait, when rejected. */
  retryAfter?: number;
};

type Outcome = { bucket: Bucket; res: RateLimiterRes; rejected: boolean };

function decisionOf(o: Outcome, refunded: number): Decision {
  const ms = Math.max(0, o.res.msBeforeNext);
  return {
    allowed: !o.rejected,
    bucket: o.bucket.limit.id,
    limit: o.bucket.limit.points,
    remaining: Math.max(0, o.res.remainingPoints + refunded),
    reset: Math.ceil((Date.now() + ms) / 1000),
    ...(o.rejected ? { retryAfter: Math.max(1, Math.ceil(ms / 1000)) } : {}),
  };
}

/** Of two decisions, the one a client must heed: a rejection first, then the fewest remaining. */
export function mostConstraining(a: Decision | undefined, b: Decision | undefined): Decision | undefined {
  if (!a || !b) return a ?? b;
  if (a.allowed !== b.allowed) return a.allowed ? b : a;
  if (!a.allowed) return (a.retryAfter ?? 0) >= (b.retryAfter ?? 0) ? a : b;
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b;
  return a.reset >= b.reset ? a : b;
}

export type RateLimitsOptions = { redis?: Redis | undefined; prefix: string; log: Logger; enabled?: boolean };

export class RateLimits {
  readonly enabled: boolean;
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: Redis | undefined;
  private readonly prefix: string;
  private redisDown = false;
  /** Redis errors seen, and decisions made from memory while Redis was away. */
  readonly counters = { redisErrors: 0, memoryDecisions: 0 };

  constructor(opts: RateLimitsOptions) {
    this.redis = opts.redis;
    this.prefix = opts.prefix;
    this.enabled = opts.enabled ?? true;
    const { log } = opts;
    const down = (reason: string) => {
      if (!this.redisDown) log.warn({ err: reason }, 'redis unavailable: rate limits counted in memory per instance');
      this.redisDown = true;
    };
    this.redis?.on('error', (err: Error) => {
      this.counters.redisErrors++;
      down(err.message);
    });
    // A connection Redis closed (a restart, a crash seen as a clean close) raises no error when the
    // first reconnect succeeds, yet requests are counted in memory meanwhile. Status 'end' is our own
    // shutdown, not an outage.
    const redis = this.redis;
    redis?.on('close', () => {
      if (redis.status !== 'end') down('connection closed');
    });
    this.redis?.on('ready', () => {
      if (this.redisDown) log.info('redis is back: rate limits shared again');
      this.redisDown = false;
    });
  }

  /** The counter of one limit (FailureLimits counts failures in it). */
  limiterOf(limit: Limit): RateLimiterAbstract {
    return this.limiter(limit);
  }

  private limiter(limit: Limit): RateLimiterAbstract {
    let l = this.limiters.get(limit.id);
    if (!l) {
      const common = { keyPrefix: `${this.prefix}:rl:${limit.id}`, points: limit.points, duration: limit.seconds };
      const memory = new RateLimiterMemory(common);
      l = this.redis
        ? new RateLimiterRedis({ ...common, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: memory })
        : memory;
      this.limiters.set(limit.id, l);
    }
    return l;
  }

  /**
   * Spends the request (its cost) from every bucket, unless one of them is full: then the request is rejected and
   * nothing it took from the others is kept. Returns the decision the headers report.
   */
  async check(buckets: Bucket[]): Promise<Decision | undefined> {
    return this.enabled ? this.checkAlways(buckets) : undefined;
  }

  /**
   * `check`, whether or not request limits are on: the account and developer-app forms' buckets (work
   * a signed-in user could loop, such as argon2 hashing), always counted like the sign-in ones.
   */
  async checkAlways(buckets: Bucket[]): Promise<Decision | undefined> {
    if (buckets.length === 0) return undefined;
    if (this.redis && this.redis.status !== 'ready') this.counters.memoryDecisions++;
    const outcomes: Outcome[] = await Promise.all(
      buckets.map(async (bucket) => {
        try {
          return { bucket, res: await this.limiter(bucket.limit).consume(bucket.key, bucket.cost ?? 1), rejected: false };
        } catch (err) {
          if (err instanceof RateLimiterRes) return { bucket, res: err, rejected: true };
          throw err;
        }
      }),
    );
    const rejected = outcomes.some((o) => o.rejected);
    for (const o of outcomes) if (o.rejected) rateLimitRejections.inc({ bucket: o.bucket.limit.id });
    // A rejected request takes nothing: every bucket gets its points back (the full one stays full).
    if (rejected) await Promise.all(outcomes.map((o) => this.limiter(o.bucket.limit).reward(o.bucket.key, o.bucket.cost ?? 1)));
    return outcomes
      .map((o) => decisionOf(o, rejected && !o.rejected ? (o.bucket.cost ?? 1) : 0))
      .reduce<Decision | undefined>((best, d) => mostConstraining(best, d), undefined);
  }

  /** Gives back what a request took from buckets checked earlier, when a later check refuses it. */
  async refund(buckets: Bucket[]): Promise<void> {
    if (!this.enabled) return;
    await Promise.all(buckets.map((b) => this.limiter(b.limit).reward(b.key, b.cost ?? 1)));
  }
}

/**
 * Buckets that count failures, not requests (password guessing): `blocked` asks whether one is full
 * without spending anything, `failed` counts one failure in each, `forget` clears a bucket (a success
 * resets the account's count). Always on: RATE_LIMITS=off turns off request limits, not these.
 */
export class FailureLimits {
  private readonly limits: RateLimits;

  constructor(limits: RateLimits) {
    this.limits = limits;
  }

  /** The rejecting decision when any bucket is full, else undefined. */
  async blocked(buckets: Bucket[]): Promise<Decision | undefined> {
    const outcomes = await Promise.all(
      buckets.map(async (bucket) => {
        const res = await this.limits.limiterOf(bucket.limit).get(bucket.key);
        return { bucket, res, rejected: res !== null && res.consumedPoints >= bucket.limit.points };
      }),
    );
    const full = outcomes.filter((o): o is Outcome => o.rejected);
    for (const o of full) rateLimitRejections.inc({ bucket: o.bucket.limit.id });
    return full.map((o) => decisionOf(o, 0)).reduce<Decision | undefined>((best, d) => mostConstraining(best, d), undefined);
  }

  async failed(buckets: Bucket[]): Promise<void> {
    await Promise.all(buckets.map((b) => this.limits.limiterOf(b.limit).penalty(b.key, 1)));
  }

  async forget(bucket: Bucket): Promise<void> {
    await this.limits.limiterOf(bucket.limit).delete(bucket.key);
  }
}

/** The headers a decision puts on a response (every platform response carries them: the platform OpenAPI document, Conventions). */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.reset),
    ...(d.retryAfter !== undefined ? { 'Retry-After': String(d.retryAfter) } : {}),
  };
}
