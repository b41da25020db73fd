// The rate-limit buckets of Trakt's OAuth endpoints: the same buckets, keys and order as the platform's
// JSON shims in front of the same provider endpoints (src/oauth/shims.ts), so a client cannot get more
// device codes, polls, refreshes or revocations by asking in Trakt's dialect:
//   POST /oauth/device/code  ~ POST /auth/device/code   device-code (per address)
//   POST /oauth/device/token ~ POST /auth/device/token  device-token (per address)
//   POST /oauth/token        ~ POST /oauth/token        token-admission (per address), then token-client
//                                                        (per client and address) and, for a refresh,
//                                                        refresh (per address)
//   POST /oauth/revoke       ~ POST /oauth/revoke       revoke (per client and address)
// The endpoint's own bucket is counted before the body is looked at, the per-client ones once it names
// the client, as there.
import type { Request, Response } from 'express';
import type { Logger } from '../core/log.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { limitById, type Bucket, type LimitId } from '../core/limits/table.ts';
import { checkBuckets, clientIp } from '../rest/rate-limit.ts';

export type TraktOAuthEndpoint = 'device-code' | 'device-token' | 'token' | 'revoke';

const PER_ADDRESS: Partial<Record<TraktOAuthEndpoint, LimitId>> = { 'device-code': 'device-code', 'device-token': 'device-token', token: 'token-admission' };
const PER_CLIENT: Partial<Record<TraktOAuthEndpoint, LimitId>> = { token: 'token-client', revoke: 'revoke' };

type Deps = { limits: RateLimits; log: Logger };

/** Counts the endpoint's own bucket (per address); 429 when it is spent. */
export async function countEndpoint(deps: Deps, req: Request, res: Response, endpoint: TraktOAuthEndpoint): Promise<void> {
  const id = PER_ADDRESS[endpoint];
  if (id) await checkBuckets(deps.limits, deps.log, res, [{ limit: limitById(id), key: clientIp(req) }]);
}

/** Counts the buckets that need the body: per client and address, and a refresh's own bucket. */
export async function countClient(deps: Deps, req: Request, res: Response, endpoint: TraktOAuthEndpoint, clientId: string | undefined, grantType?: string): Promise<void> {
  const buckets: Bucket[] = [];
  const perClient = PER_CLIENT[endpoint];
  if (perClient) buckets.push({ limit: limitById(perClient), key: `${clientId ?? '-'}:${clientIp(req)}` });
  if (endpoint === 'token' && grantType === 'refresh_token') buckets.push({ limit: limitById('refresh'), key: clientIp(req) });
  if (buckets.length) await checkBuckets(deps.limits, deps.log, res, buckets);
}
