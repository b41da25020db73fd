// The metadata provider's own rate limit, shared by every instance: each request to the provider takes a
// token first and waits in line when there is none (rate-limiter-flexible's RateLimiterQueue over the
// same counters the request limits use: Redis when the service has it, else this process's memory; when
// Redis stops answering, each instance counts in memory until it returns).
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterQueue, RateLimiterRedis } from 'rate-limiter-flexible';

export type ProviderBucket = { take(): Promise<void> };

/** Requests waiting for a token at most; more means the provider cannot keep up, and the request fails. */
const MAX_WAITING = 2_000;

export function providerBucket(opts: { perSecond: number; redis?: Redis | undefined; prefix: string }): ProviderBucket {
  const common = { keyPrefix: `${opts.prefix}:provider`, points: opts.perSecond, duration: 1 };
  const memory = new RateLimiterMemory(common);
  const limiter = opts.redis ? new RateLimiterRedis({ ...common, storeClient: opts.redis, rejectIfRedisNotReady: true, insuranceLimiter: memory }) : memory;
  const queue = new RateLimiterQueue(limiter, { maxQueueSize: MAX_WAITING });
  return {
    take: async () => {
      await queue.removeTokens(1);
    },
  };
}
