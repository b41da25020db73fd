// Every rate limit of the service, in one table: its size, window and key. Which
// endpoints a limit counts is said where the endpoint is defined: a procedure names its buckets in its
// metadata (`limits`), an Express-only route counts its own. The README's table and the OpenAPI
// documents are made from this table and the procedures.
import { createHash } from 'node:crypto';

/** What a bucket is counted per. */
type LimitKey = 'ip' | 'client_ip' | 'user' | 'user_or_ip' | 'app_user' | 'operation_app_user' | 'token' | 'feed_token' | 'app' | 'account' | 'receiver';

export type Limit = {
  id: string;
  /** `pages`: the service's own HTML forms (sign-in), outside both APIs. `hooks`: the media-server receivers' URLs. */
  surface: 'platform' | 'public' | 'pages' | 'hooks';
  /**
   * Where the bucket is counted. `pipeline`: the general buckets, by the HTTP pipeline for every request
   * of their class. `procedure`: named in the `limits` of a procedure's metadata and counted by the
   * procedure middleware, for REST and /trpc alike (the README and the documents name the endpoints
   * from those procedures). `route`: by a route that exists only in Express (OAuth, the events stream,
   * the sign-in forms).
   */
  checkedBy: 'pipeline' | 'procedure' | 'route';
  /** What a `pipeline` or `route` bucket counts, in words. */
  endpoint?: string;
  /** The Express-only routes that count a `route` bucket (`METHOD /path` under the API base), for the documents. */
  routes?: readonly string[];
  /** General buckets: which requests they count. */
  applies?: 'reads' | 'writes' | 'all' | 'unauthenticated';
  points: number;
  seconds: number;
  key: LimitKey;
};

const MINUTE = 60;
const HOUR = 3600;

const LIMIT_DEFS = [
  { id: 'token-reads', surface: 'platform', checkedBy: 'pipeline', endpoint: 'authenticated reads (GET; tRPC queries)', applies: 'reads', points: 300, seconds: MINUTE, key: 'app_user' },
  { id: 'token-writes', surface: 'platform', checkedBy: 'pipeline', endpoint: 'authenticated writes (POST, PUT, PATCH, DELETE; tRPC mutations)', applies: 'writes', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'app', surface: 'platform', checkedBy: 'pipeline', endpoint: 'every authenticated request of an app', applies: 'all', points: 6000, seconds: MINUTE, key: 'app' },
  // A bucket of our own (docs/decisions.md, Rate limits): requests without a valid bearer token still carry honest headers.
  { id: 'unauthenticated', surface: 'platform', checkedBy: 'pipeline', endpoint: 'requests without a valid bearer token', applies: 'unauthenticated', points: 300, seconds: MINUTE, key: 'ip' },
  { id: 'device-code', surface: 'platform', checkedBy: 'route', routes: ['POST /auth/device/code'], endpoint: 'POST /auth/device/code', points: 10, seconds: HOUR, key: 'ip' },
  { id: 'device-token', surface: 'platform', checkedBy: 'route', routes: ['POST /auth/device/token', 'POST /oauth/token'], endpoint: 'POST /auth/device/token (and device-code polls sent to POST /oauth/token)', points: 200, seconds: 10 * MINUTE, key: 'ip' },
  { id: 'refresh', surface: 'platform', checkedBy: 'route', routes: ['POST /auth/refresh', 'POST /oauth/token'], endpoint: 'POST /auth/refresh (and refreshes sent to POST /oauth/token)', points: 20, seconds: HOUR, key: 'ip' },
  { id: 'token-admission', surface: 'platform', checkedBy: 'route', routes: ['POST /oauth/token'], endpoint: 'POST /oauth/token (admission)', points: 180, seconds: MINUTE, key: 'ip' },
  { id: 'token-client', surface: 'platform', checkedBy: 'route', routes: ['POST /oauth/token'], endpoint: 'POST /oauth/token (per client)', points: 120, seconds: MINUTE, key: 'client_ip' },
  { id: 'revoke', surface: 'platform', checkedBy: 'route', routes: ['POST /oauth/revoke'], endpoint: 'POST /oauth/revoke', points: 60, seconds: MINUTE, key: 'client_ip' },
  { id: 'consent-approvals', surface: 'platform', checkedBy: 'route', routes: ['POST /oauth/authorize'], endpoint: 'POST /oauth/authorize (approvals)', points: 30, seconds: MINUTE, key: 'user' },
  { id: 'calendar', surface: 'platform', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'app_user' },
  { id: 'history', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  // A bucket of our own, the size of the history reads': Up next is a page of the user's shows.
  { id: 'up-next', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  // A bucket of our own, the calendar's size: a year in review is some ten bounded reads, asked for a year
  // at a time (a person going through the years).
  { id: 'year-in-review', surface: 'platform', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'app_user' },
  { id: 'lists', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'playback', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: 5 * MINUTE, key: 'user' },
  { id: 'events-token', surface: 'platform', checkedBy: 'route', routes: ['GET /playback/events'], endpoint: 'GET /playback/events (per token)', points: 20, seconds: MINUTE, key: 'token' },
  { id: 'events-user', surface: 'platform', checkedBy: 'route', routes: ['GET /playback/events'], endpoint: 'GET /playback/events (per user)', points: 60, seconds: MINUTE, key: 'user' },
  { id: 'sync-changes', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'sync-snapshot', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'sync-write', surface: 'platform', checkedBy: 'procedure', points: 30, seconds: MINUTE, key: 'operation_app_user' },
  // Media-server receivers (core/media-servers): each creation or rotation makes a secret; a person does a few.
  { id: 'media-server-receivers', surface: 'platform', checkedBy: 'procedure', points: 30, seconds: HOUR, key: 'user' },
  // What a media server posts to one receiver's URLs (src/rest/media-server-hooks.ts): Jellyfin's progress
  // reports come every few seconds per stream, so a household's few streams stay well inside it.
  { id: 'media-server-hook', surface: 'hooks', checkedBy: 'route', endpoint: 'webhooks posted to one media-server receiver (POST /hooks/media-server/{secret}/{kind})', points: 300, seconds: 5 * MINUTE, key: 'receiver' },
  // A bucket of our own: the full export reads every row the user has, so a user gets a few an hour,
  // whichever official app asks (core/export).
  { id: 'export', surface: 'platform', checkedBy: 'procedure', points: 10, seconds: HOUR, key: 'user' },
  // Calendar feeds (core/calendar-feed): each fetch renders up to 1,000 events; calendar apps poll every
  // few hours, a person clicking Refresh a few times more. Rotations are clicks on /settings.
  { id: 'calendar-feed', surface: 'platform', checkedBy: 'route', routes: ['GET /me/calendar.ics'], endpoint: 'GET /me/calendar.ics', points: 60, seconds: HOUR, key: 'feed_token' },
  { id: 'calendar-feed-create', surface: 'platform', checkedBy: 'procedure', points: 20, seconds: HOUR, key: 'user' },
  // Buckets of our own: an app's owner managing its webhooks (core/webhooks), the size of the other
  // buckets of a resource, and the test messages it asks for, each an outbound request the service makes
  // at once: a few a minute for the whole app.
  { id: 'webhooks', surface: 'platform', checkedBy: 'procedure', points: 120, seconds: MINUTE, key: 'app_user' },
  { id: 'webhook-test', surface: 'platform', checkedBy: 'procedure', points: 10, seconds: MINUTE, key: 'app' },
  { id: 'public-user', surface: 'public', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-search', surface: 'public', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-trending', surface: 'public', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'ip' },
  { id: 'public-discover', surface: 'public', checkedBy: 'procedure', points: 90, seconds: MINUTE, key: 'ip' },
  { id: 'public-overview', surface: 'public', checkedBy: 'procedure', points: 60, seconds: MINUTE, key: 'ip' },
  // Password guessing (core/accounts/sign-in.ts): failed sign-ins, counted on every form that takes a
  // password; the next attempt past a full bucket is refused without checking the password.
  { id: 'sign-in-account', surface: 'pages', checkedBy: 'route', endpoint: 'failed password sign-ins for one account (every sign-in form)', points: 10, seconds: 15 * MINUTE, key: 'account' },
  { id: 'sign-in-ip', surface: 'pages', checkedBy: 'route', endpoint: 'failed password sign-ins from one address (every sign-in form)', points: 50, seconds: 15 * MINUTE, key: 'ip' },
  // Successful sign-ins cost the same argon2 work: a loop of the right password meets this one.
  { id: 'sign-in-success', surface: 'pages', checkedBy: 'route', endpoint: 'successful password sign-ins to one account (every sign-in form)', points: 60, seconds: 15 * MINUTE, key: 'account' },
  // Sign-ups (core/accounts/sign-up.ts): each account made, and each username found taken (a probe),
  // costs argon2 work and says something; form mistakes do not count. Always on, like the two above.
  { id: 'sign-up-ip', surface: 'pages', checkedBy: 'route', endpoint: 'sign-ups from one address (accounts made and usernames found taken)', points: 10, seconds: HOUR, key: 'ip' },
  // Imports (src/web/account/imports.ts): each upload stores a file and starts a background run. Every
  // upload that reaches the file counts, refused or not; always on, like the three above.
  { id: 'import-upload', surface: 'pages', checkedBy: 'route', endpoint: 'file uploads to /account/import', points: 10, seconds: HOUR, key: 'user' },
  // The export's download from the account page (web/account/account-export.ts): the same cost as the
  // API's. Always on, like the forms below.
  { id: 'export-page', surface: 'pages', checkedBy: 'route', endpoint: 'downloads of the full export from /account/export', points: 10, seconds: HOUR, key: 'user' },
  // The account and developer-app forms (web/account/form-limits.ts): every POST counts, per signed-in user
  // (per address without a session), always on, so no loop of a form does unbounded work. Sizes a
  // person never meets by hand. A secret rotation hashes with argon2, which costs CPU (figures:
  // docs/performance.md, 'argon2id hash cost'): a handful an hour, room to rotate every app after a leak.
  { id: 'app-secret', surface: 'pages', checkedBy: 'route', endpoint: 'client secret rotations on /account/apps', points: 10, seconds: HOUR, key: 'user_or_ip' },
  // Registering an app makes a row (and, for a confidential app, an argon2 hash). An account holds at
  // most 20 apps, which it may fill in one sitting; deleting and registering again in a loop meets this.
  { id: 'app-create', surface: 'pages', checkedBy: 'route', endpoint: 'app registrations on /account/apps (refused forms included)', points: 30, seconds: HOUR, key: 'user_or_ip' },
  // Deactivating, activating and deleting an app: each ends tokens or rows; clicks, not a script.
  { id: 'app-edit', surface: 'pages', checkedBy: 'route', endpoint: 'activations, deactivations and deletions of apps on /account/apps', points: 30, seconds: MINUTE, key: 'user_or_ip' },
  // Revoking a connected app (ends every token of its grants) and signing out.
  { id: 'account-forms', surface: 'pages', checkedBy: 'route', endpoint: 'connected-app revocations and sign-outs on /account', points: 30, seconds: MINUTE, key: 'user_or_ip' },
  // An app's webhooks on its page (web/account/app-webhooks.ts): adding one checks its URL's addresses
  // (a DNS lookup); an app holds at most 10. Clicks, not a script, like app-edit.
  { id: 'webhook-forms', surface: 'pages', checkedBy: 'route', endpoint: 'webhooks added, changed, resumed and deleted, and their secrets rotated, on /account/apps', points: 30, seconds: MINUTE, key: 'user_or_ip' },
  // A test message is a POST from the service to the owner's URL, which may take the whole delivery
  // timeout to answer: a few a minute check a receiver; a loop would make the service a load generator.
  // Beside the API's `webhook-test` (per app), as the app pages' buckets are beside the API's.
  { id: 'webhook-page-test', surface: 'pages', checkedBy: 'route', endpoint: 'test messages sent from /account/apps', points: 10, seconds: MINUTE, key: 'user_or_ip' },
] as const satisfies readonly Limit[];

/** The id of a limit: what procedure metadata and routes name. */
export type LimitId = (typeof LIMIT_DEFS)[number]['id'];

export const LIMITS: readonly Limit[] = LIMIT_DEFS;

export function limitById(id: LimitId): Limit {
  const limit = LIMITS.find((l) => l.id === id);
  if (!limit) throw new Error(`no rate limit ${id}`);
  return limit;
}

/** Who is asking, as far as the limiter needs to know. */
export type LimitSubject = {
  ip: string;
  actor?: { userId: string; clientId: string } | undefined;
  /** A digest of the bearer token, for per-token buckets. */
  tokenId?: string | undefined;
  /** The operation, for per-operation buckets: the procedure's name (e.g. `sync.history`). */
  operation?: string | undefined;
};

/** One bucket to count a request in; `cost` is how many requests it counts for (a /trpc batch: its calls). */
export type Bucket = { limit: Limit; key: string; cost?: number };

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
    // The calendar feed's route passes a digest of its token (tokenBucketId) as the subject's token.
    case 'feed_token':
      return s.tokenId;
    case 'operation_app_user':
      return a && s.operation && `${s.operation}:${a.clientId}:${a.userId}`;
    case 'client_ip':
    case 'account':
    case 'user_or_ip':
    case 'receiver':
      return undefined; // known only once the body is read: the route builds these buckets itself
  }
}

/** The buckets of the given limits that apply to this subject (a per-user bucket needs a user). */
export function bucketsOf(ids: readonly LimitId[], s: LimitSubject): Bucket[] {
  const buckets: Bucket[] = [];
  for (const id of ids) {
    const limit = limitById(id);
    const key = keyFor(limit, s);
    if (key) buckets.push({ limit, key });
  }
  return buckets;
}

/**
 * The general buckets of platform requests, counted by the HTTP pipeline for every request, whatever
 * it reaches: reads or writes per app and user, every request per app, and requests without a valid
 * token per address. `calls` is how many procedure calls the request makes (a /trpc batch makes several).
 */
export function generalBuckets(s: LimitSubject & { read: boolean; calls: number }): Bucket[] {
  const buckets: Bucket[] = [];
  for (const limit of LIMITS) {
    if (limit.checkedBy !== 'pipeline') continue;
    const applies = limit.applies === 'unauthenticated' ? !s.actor : !!s.actor && (limit.applies === 'all' || (limit.applies === 'reads') === s.read);
    const key = applies ? keyFor(limit, s) : undefined;
    if (key) buckets.push({ limit, key, ...(s.calls !== 1 ? { cost: s.calls } : {}) });
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
