// Every rate limit of the service, in one table (spec: Limits). The limiter, the OpenAPI document and
// the README's table are all made from it. Paths are relative to the API base of their surface.
import { createHash } from 'node:crypto';

/** What a bucket is counted per. */
export type LimitKey = 'ip' | 'client_ip' | 'user' | 'app_user' | 'operation_app_user' | 'token' | 'app' | 'account';

export type Limit = {
  id: string;
  /** `pages`: the service's own HTML forms (sign-in), outside both APIs. */
  surface: 'platform' | 'public' | 'pages';
  /** Method and path pattern of the endpoint, or a class of requests for the general buckets. */
  endpoint: string;
  method?: string;
  path?: RegExp;
  /** General buckets: which authenticated platform requests they count. */
  applies?: 'reads' | 'writes' | 'all' | 'unauthenticated';
  /** Counted where the request is understood, not by the HTTP pipeline (e.g. after the body is read). */
  checkedBy?: 'oauth';
  points: number;
  seconds: number;
  key: LimitKey;
};

const MINUTE = 60;
const HOUR = 3600;

export const LIMITS: readonly Limit[] = [
  { id: 'token-reads', surface: 'platform', endpoint: 'authenticated reads (GET)', applies: 'reads', points: 300, seconds: MINUTE, key: 'app_user' },
  { id: 'token-writes', surface: 'platform', endpoint: 'authenticated writes', applies: 'writes', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'app', surface: 'platform', endpoint: 'every authenticated request of an app', applies: 'all', points: 6000, seconds: MINUTE, key: 'app' },
  // Not in the spec: requests without a valid bearer token still carry honest headers.
  { id: 'unauthenticated', surface: 'platform', endpoint: 'requests without a valid bearer token', applies: 'unauthenticated', points: 300, seconds: MINUTE, key: 'ip' },
  { id: 'device-code', surface: 'platform', endpoint: 'POST /auth/device/code', method: 'POST', path: /^\/auth\/device\/code$/, points: 10, seconds: HOUR, key: 'ip' },
  { id: 'device-token', surface: 'platform', endpoint: 'POST /auth/device/token (and device-code polls sent to POST /oauth/token)', method: 'POST', path: /^\/auth\/device\/token$/, points: 200, seconds: 10 * MINUTE, key: 'ip' },
  { id: 'refresh', surface: 'platform', endpoint: 'POST /auth/refresh (and refreshes sent to POST /oauth/token)', method: 'POST', path: /^\/auth\/refresh$/, points: 20, seconds: HOUR, key: 'ip' },
  { id: 'token-admission', surface: 'platform', endpoint: 'POST /oauth/token (admission)', method: 'POST', path: /^\/oauth\/token$/, points: 180, seconds: MINUTE, key: 'ip' },
  { id: 'token-client', surface: 'platform', endpoint: 'POST /oauth/token (per client)', method: 'POST', path: /^\/oauth\/token$/, checkedBy: 'oauth', points: 120, seconds: MINUTE, key: 'client_ip' },
  { id: 'revoke', surface: 'platform', endpoint: 'POST /oauth/revoke', method: 'POST', path: /^\/oauth\/revoke$/, checkedBy: 'oauth', points: 60, seconds: MINUTE, key: 'client_ip' },
  { id: 'consent-approvals', surface: 'platform', endpoint: 'POST /oauth/authorize (approvals)', method: 'POST', path: /^\/oauth\/authorize$/, checkedBy: 'oauth', points: 30, seconds: MINUTE, key: 'user' },
  { id: 'calendar', surface: 'platform', endpoint: 'GET /calendar', method: 'GET', path: /^\/calendar$/, points: 60, seconds: MINUTE, key: 'app_user' },
  { id: 'history', surface: 'platform', endpoint: 'GET /me/history', method: 'GET', path: /^\/me\/history$/, points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'lists', surface: 'platform', endpoint: 'GET /me/lists', method: 'GET', path: /^\/me\/lists$/, points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'playback', surface: 'platform', endpoint: 'POST /playback/{action}', method: 'POST', path: /^\/playback\/[^/]+$/, points: 120, seconds: 5 * MINUTE, key: 'user' },
  { id: 'events-token', surface: 'platform', endpoint: 'GET /playback/events (per token)', method: 'GET', path: /^\/playback\/events$/, points: 20, seconds: MINUTE, key: 'token' },
  { id: 'events-user', surface: 'platform', endpoint: 'GET /playback/events (per user)', method: 'GET', path: /^\/playback\/events$/, points: 60, seconds: MINUTE, key: 'user' },
  { id: 'sync-changes', surface: 'platform', endpoint: 'GET /me/sync/changes', method: 'GET', path: /^\/me\/sync\/changes$/, points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'sync-snapshot', surface: 'platform', endpoint: 'GET /me/sync/snapshot', method: 'GET', path: /^\/me\/sync\/snapshot$/, points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'sync-write', surface: 'platform', endpoint: 'POST /sync/{resource}', method: 'POST', path: /^\/sync\/[^/]+$/, points: 30, seconds: MINUTE, key: 'operation_app_user' },
  { id: 'public-user', surface: 'public', endpoint: 'GET /users/{username}', method: 'GET', path: /^\/users\/[^/]+$/, points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-search', surface: 'public', endpoint: 'GET /catalog/search', method: 'GET', path: /^\/catalog\/search$/, points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-trending', surface: 'public', endpoint: 'GET /catalog/trending', method: 'GET', path: /^\/catalog\/trending$/, points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-discover', surface: 'public', endpoint: 'GET /catalog/discover', method: 'GET', path: /^\/catalog\/discover$/, points: 90, seconds: MINUTE, key: 'ip' },
  { id: 'public-overview', surface: 'public', endpoint: 'GET /community/overview', method: 'GET', path: /^\/community\/overview$/, points: 60, seconds: MINUTE, key: 'ip' },
  // Password guessing (core/accounts/sign-in.ts): failed sign-ins, counted on every form that takes a
  // password; the next attempt past a full bucket is refused without checking the password.
  { id: 'sign-in-account', surface: 'pages', endpoint: 'failed password sign-ins for one account (every sign-in form)', checkedBy: 'oauth', points: 10, seconds: 15 * MINUTE, key: 'account' },
  { id: 'sign-in-ip', surface: 'pages', endpoint: 'failed password sign-ins from one address (every sign-in form)', checkedBy: 'oauth', points: 50, seconds: 15 * MINUTE, key: 'ip' },
];

export function limitById(id: string): Limit {
  const limit = LIMITS.find((l) => l.id === id);
  if (!limit) throw new Error(`no rate limit ${id}`);
  return limit;
}

/** What the request looks like to the limiter. */
export type LimitSubject = {
  surface: 'platform' | 'public';
  method: string;
  /** Path relative to the surface's base. */
  path: string;
  ip: string;
  actor?: { userId: string; clientId: string } | undefined;
  /** A digest of the bearer token, for per-token buckets. */
  tokenId?: string | undefined;
};

export type Bucket = { limit: Limit; key: string };

function keyFor(limit: Limit, s: LimitSubject): string | undefined {
  const a = s.actor;
  switch (limit.key) {
    case 'ip':
      return s.ip;
    case 'app':
      return a?.clientId;
    case 'user':
      return a?.userId;
    case 'app_user':
      return a && `${a.clientId}:${a.userId}`;
    case 'token':
      return s.tokenId;
    case 'operation_app_user':
      return a && `${s.path.split('/')[2]}:${a.clientId}:${a.userId}`;
    case 'client_ip':
    case 'account':
      return undefined; // known only once the body is read (checkedBy: 'oauth')
  }
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** The buckets the HTTP pipeline checks for a request: all that apply, before the body is read. */
export function bucketsFor(s: LimitSubject): Bucket[] {
  const buckets: Bucket[] = [];
  for (const limit of LIMITS) {
    if (limit.surface !== s.surface || limit.checkedBy) continue;
    if (limit.applies) {
      const applies =
        limit.applies === 'unauthenticated' ? !s.actor : s.actor && (limit.applies === 'all' || (limit.applies === 'reads') === isRead(s.method));
      if (!applies) continue;
    } else if (limit.method !== s.method || !limit.path?.test(s.path)) continue;
    const key = keyFor(limit, s);
    if (key) buckets.push({ limit, key });
  }
  return buckets;
}

/**
 * The key of a bearer token in the per-token buckets: a digest, so no raw token sits in Redis. The
 * events ticket records it too, so a stream opened with a ticket counts against the token that asked.
 */
export function tokenBucketId(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}
