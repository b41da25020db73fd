// Examples in the OpenAPI documents: an example answer on every response of every operation (success
// bodies, redirects' Location, the error envelope per code), and example bodies for the requests a
// client most needs to get right (bulk sync, the OAuth endpoints).
//
// Success bodies are drawn from the response schemas by `sampleSchema`, with plausible values chosen
// by field name (one movie, one user, one app throughout), then adjusted per component and per operation
// where the shape alone says too little. Drawn from the schemas, the examples follow them as they
// change; test/unit/openapi-lint.test.ts checks every example against its schema (Spectral's
// oas3-valid-media-example) so one that stops matching fails the build.
import { PLATFORM_BASE } from './envelope.ts';
import { statusOf, type ErrorCode } from '../core/errors.ts';
import { OAUTH2, type SecurityRequirement } from './openapi-security.ts';

type Json = Record<string, unknown>;
type Schema = Json;

const AT = '2025-05-03T19:42:11.000Z';
const MOVIE = 603;
const SHOW_TVDB = 121361;
const CLIENT_ID = 'app_Zk3pQ9vX2mLr8TbN4sWc1YhE';
const REQUEST_ID = 'req_Q2xH7rK0aZ9mW4tB';
const CURSOR = 'eyJwIjpbIjIwMjUtMDUtMDNUMTk6NDI6MTEuMDAwWiIsNDJdfQ';
const USER_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const IMAGE = 'https://image.tmdb.org/t/p/w500/f89U3ADr1oiB1s9GkdPOEpXUk5H.jpg';
const SCOPE = 'profile:read history:read history:write';

/** Values by property name, tried before the type's default (and only when the schema allows them). */
const HINTS: Record<string, unknown> = {
  id: 42,
  movieDbId: MOVIE,
  movie_db_id: MOVIE,
  resolved_movie_db_id: MOVIE,
  sourceId: MOVIE,
  tv_db_id: SHOW_TVDB,
  anime_db_id: 1,
  film_db_id: 'tt0133093',
  punchplayId: `movie-${MOVIE}`,
  punchplay_id: `movie-${MOVIE}`,
  name: 'The Matrix',
  title: 'The Matrix',
  tagline: 'Welcome to the Real World.',
  overview: 'A hacker learns from mysterious rebels about the true nature of his reality.',
  description: 'Films to rewatch this winter.',
  episodeTitle: 'Pilot',
  episode_title: 'Pilot',
  year: 1999,
  yearFrom: 1990,
  yearTo: 1999,
  releaseDate: '1999-03-31',
  airDate: '2025-05-03',
  date: '2025-05-03',
  startDate: '2025-05-01',
  posterPath: '/f89U3ADr1oiB1s9GkdPOEpXUk5H.jpg',
  backdropPath: '/fNG7i7RqMErkcqhohV2a6cV1Ehy.jpg',
  stillPath: '/kBbSa6ABpmXodlKjHGWv4ZnTe3P.jpg',
  posterUrl: IMAGE,
  backdropUrl: 'https://image.tmdb.org/t/p/w1280/fNG7i7RqMErkcqhohV2a6cV1Ehy.jpg',
  stillUrl: 'https://image.tmdb.org/t/p/w300/kBbSa6ABpmXodlKjHGWv4ZnTe3P.jpg',
  avatarUrl: 'https://avatars.example.org/alice.png',
  posterColor: '#1f2a44',
  genres: ['Action', 'Science Fiction'],
  originalLanguage: 'en',
  language: 'en-US',
  region: 'US',
  status: 'Released',
  ageRating: 'R',
  category: 'movie',
  runtimeMinutes: 136,
  runtime_minutes: 136,
  runtime: 136,
  episodeRunTimeMinutes: 45,
  seasonsCount: 1,
  episodesCount: 10,
  communityRating: 8.2,
  average: 8.2,
  popularity: 84.2,
  rating: 9,
  progress: 0.42,
  positionSeconds: 3420,
  durationSeconds: 8160,
  position_seconds: 3420,
  duration_seconds: 8160,
  watchedThreshold: 0.9,
  username: 'alice',
  ownerUsername: 'alice',
  linked_username: 'alice',
  displayName: 'Alice',
  bio: 'Mostly science fiction and anime.',
  userId: USER_ID,
  ownerId: USER_ID,
  clientId: CLIENT_ID,
  client_id: CLIENT_ID,
  client_item_id: 'plex-1',
  scopes: ['profile:read', 'history:read', 'history:write'],
  scope: SCOPE,
  access_token: 'mRzVQ3n2xjY0i8lL9eKoT4wXb1cPfA6sHq7uN5gD',
  refresh_token: 'r8WqG7uZ2kLcY5nP0tHjX3aVdE9fBsQmK1oI6wTe',
  token_type: 'bearer',
  expires_in: 3600,
  refresh_expires_in: 2592000,
  interval: 5,
  device_code: 'vJmP4Wk9yC2xQ7nR0tLb8sEhG5fUaZ3dN6oKiX1q',
  user_code: 'BDWP-HQPK',
  ticket: 'evt_3kYq9XvB2mPz7LcR5tWn',
  cursor: CURSOR,
  nextCursor: CURSOR,
  itemsNextCursor: CURSOR,
  changesCursor: CURSOR,
  request_id: REQUEST_ID,
  resourceId: '42',
  playbackSessionId: 'sess-3f2a9c71',
  playback_session_id: 'sess-3f2a9c71',
  deviceId: 'living-room-tv',
  device_id: 'living-room-tv',
  deviceName: 'Living room TV',
  device_name: 'Living room TV',
  notes: 'Steelbook edition',
  body: 'Bob invited you to collaborate on "Winter films".',
  season: 1,
  seasonNumber: 1,
  episode: 1,
  episodeNumber: 1,
  count: 12,
  total: 12,
  itemCount: 12,
  likeCount: 3,
  unread: 2,
  index: 0,
  watches: 3,
  plays: 3,
  points: 10,
  target: 10,
  streak: 4,
  event_created_at: 1746301331000,
  // Booleans: what the common case reads.
  isPublic: true,
  isAnime: false,
  isOwner: true,
  enabled: true,
  earned: true,
  read: false,
  watched: true,
  hasMore: false,
  ok: true,
  official: false,
  owned: true,
  aired: true,
  inApp: true,
  push: true,
};

/** Nullable fields that are null in the common case (a movie has no season; an applied item no error). */
const NULL_FIRST = new Set([
  'season', 'episode', 'episodeTitle', 'stillPath', 'episode_end', 'absolute_episode', 'absoluteNumber', 'error', 'reason', 'ignored',
  'readAt', 'lastSyncedAt', 'externalSource', 'externalUrl', 'lastSyncError', 'dynamicListFilters', 'dynamicListSyncState',
  'dynamicListLastFullSyncedAt', 'containsItemId', 'tv_db_id', 'earnedAt', 'lastEarnedAt',
]);

const WEBHOOK_URL = 'https://hooks.example.org/media-tracking';
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4Xk3n0vAZ8o=';
const WEBHOOK = {
  id: '12', url: WEBHOOK_URL, kinds: ['history', 'ratings', 'authorization.revoked'], status: 'active', pausedReason: null, pausedAt: null, failures: 0,
  nextAttemptAt: AT, lastAttemptAt: AT, lastSuccessAt: AT, lastStatus: 200, lastError: null, createdAt: AT, updatedAt: AT,
};

/** Adjustments per component, merged over what the schema gives. */
const COMPONENT_HINTS: Record<string, Json> = {
  Profile: { id: USER_ID },
  Notification: {
    id: '1042',
    kind: 'list_invitation',
    title: 'Bob invited you to a list',
    data: { listId: 7, listName: 'Winter films', invitedBy: 'bob' },
  },
  Trophy: { id: 'movies-10', name: 'Ten movies', description: 'Watch 10 movies.', progress: 10, target: 10, earnedAt: AT },
  PushDevice: { id: '17' },
  CatalogItem: { id: `movie-${MOVIE}` },
  Me: { id: USER_ID, app: { clientId: CLIENT_ID, name: 'My TV app', official: false } },
  ConnectedApp: { name: 'My TV app' },
  WeeklyChallenge: { id: 'movies-3', title: 'Movie night', description: 'Watch 3 movies this week.', target: 3, progress: 2, xpReward: 50, completed: false },
  CommunityStats: {
    monthGenres: [
      { name: 'Science Fiction', count: 6, share: 0.6 },
      { name: 'Action', count: 4, share: 0.4 },
    ],
  },
  CollectionItem: { season: 0 },
  ListSummary: { name: 'Winter films' },
  List: { name: 'Winter films' },
  ListDetail: { name: 'Winter films' },
  ProfileHomeList: { name: 'Winter films' },
  PublicListSummary: { name: 'Winter films' },
  Webhook: WEBHOOK,
  WebhookWithSecret: { ...WEBHOOK, secret: WEBHOOK_SECRET },
  WebhookDelivery: { id: '9001', messageId: 'msg_48213', type: 'history.upsert', userId: USER_ID, attempt: 1, status: 200, error: null, durationMs: 84, at: AT },
  WebhookTestResult: { delivered: true, messageId: 'msg_test_5b2c7e0a-93d4-4f1e-8a6b-2f0c9d1e7a44', status: 200, error: null, durationMs: 84 },
};

const SAMPLE_STRINGS: Array<[RegExp, (ctx: Ctx) => string]> = [
  [/At$/, () => AT],
  [/^verification_uri_complete$/, (c) => `${c.baseUrl}${PLATFORM_BASE}/auth/device?user_code=BDWP-HQPK`],
  [/^verification_uri$/, (c) => `${c.baseUrl}${PLATFORM_BASE}/auth/device`],
  [/^verification_uri_qr$/, () => 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAJQAAACUAQMAAABP8pKXAAAABlBMVEX///8AAABVwtN+'],
  [/^redirect_uri$/, () => 'http://127.0.0.1:8765/callback'],
];

type Ctx = { components: Record<string, Schema>; baseUrl: string; depth: number };

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

function refName(ref: string): string {
  return ref.replace('#/components/schemas/', '');
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function fitsString(value: unknown, schema: Schema): value is string {
  if (typeof value !== 'string') return false;
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return false;
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
  if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) return false;
  if (schema.format === 'uri' && !URL.canParse(value)) return false;
  return true;
}

function sampleString(schema: Schema, name: string | undefined, ctx: Ctx): string {
  const candidates: unknown[] = [];
  if (name !== undefined) {
    const hint = HINTS[name];
    if (hint !== undefined) candidates.push(typeof hint === 'number' ? String(hint) : hint);
    for (const [re, make] of SAMPLE_STRINGS) if (re.test(name)) candidates.push(make(ctx));
  }
  if (schema.format === 'date-time') candidates.push(AT);
  if (schema.format === 'date') candidates.push('2025-05-03');
  if (schema.format === 'uri') candidates.push(`${ctx.baseUrl}/docs`);
  // Last: values for the patterns the documents use (ids, codes, times).
  candidates.push('example', '42', 'tt0133093', `movie-${MOVIE}`, 'US', 'en', AT);
  const found = candidates.find((c) => fitsString(c, schema));
  if (found !== undefined) return found as string;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return 'example'.padEnd(min, 'x');
}

function sampleNumber(schema: Schema, name: string | undefined, integer: boolean): number {
  const hint = name !== undefined ? HINTS[name] : undefined;
  let n = typeof hint === 'number' ? hint : 1;
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.01) : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 0.01) : undefined;
  if (min !== undefined && n < min) n = min;
  if (max !== undefined && n > max) n = max;
  return integer ? Math.round(n) : n;
}

/** A value `schema` allows, plausible for a field called `name`. */
function sampleSchema(schema: Schema | undefined, ctx: Ctx, name?: string): unknown {
  if (!schema || ctx.depth > 12) return null;
  const deeper = { ...ctx, depth: ctx.depth + 1 };
  if (typeof schema.$ref === 'string') return sampleComponent(refName(schema.$ref), deeper, name);
  if ('example' in schema) return clone(schema.example);
  if (Array.isArray(schema.examples) && schema.examples.length) return clone(schema.examples[0]);
  if ('const' in schema) return clone(schema.const);
  const hint = name !== undefined ? HINTS[name] : undefined;
  if (Array.isArray(schema.enum)) return clone(schema.enum.includes(hint) ? hint : schema.enum[0]);
  const choices = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (choices?.length) {
    const isNull = (s: Schema) => s.type === 'null';
    const pick = (name !== undefined && NULL_FIRST.has(name) && choices.find(isNull)) || choices.find((s) => !isNull(s)) || choices[0]!;
    return sampleSchema(pick, deeper, name);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => sampleSchema(s, deeper, name)).filter(isObject));
  }
  const types = typesOf(schema);
  if (types.includes('null') && (types.length === 1 || (name !== undefined && NULL_FIRST.has(name)))) return null;
  const type = types.find((t) => t !== 'null');
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out[key] = sampleSchema(prop, deeper, key);
      if (!schema.properties && isObject(schema.additionalProperties) && Object.keys(schema.additionalProperties).length) {
        const keys = (schema.propertyNames as Schema | undefined)?.enum as string[] | undefined;
        out[keys?.[0] ?? 'example'] = sampleSchema(schema.additionalProperties, deeper);
      }
      return out;
    }
    case 'array': {
      const items = schema.items as Schema | undefined;
      if (Array.isArray(hint) && (!items || typesOf(items).includes('string')) && !items?.enum) return clone(hint);
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: count }, () => sampleSchema(items, deeper, name));
    }
    case 'string':
      return sampleString(schema, name, ctx);
    case 'integer':
      return sampleNumber(schema, name, true);
    case 'number':
      return sampleNumber(schema, name, false);
    case 'boolean':
      return typeof hint === 'boolean' ? hint : false;
    default:
      return hint !== undefined ? clone(hint) : {};
  }
}

function sampleComponent(component: string, ctx: Ctx, name?: string): unknown {
  const schema = ctx.components[component];
  const value = sampleSchema(schema, ctx, name);
  const hints = COMPONENT_HINTS[component];
  return isObject(value) && hints ? { ...value, ...clone(hints) } : value;
}

// --- Examples written per operation (on top of the drawn ones) -----------------------------------

type Example = { value: unknown; summary?: string };
type OperationExamples = {
  /** The success body, given the drawn one and a way to draw components. */
  response?: (drawn: unknown, draw: (component: string) => Json) => unknown;
  /** Example request bodies by media type. */
  request?: Record<string, unknown>;
  /** Example error bodies by code, where the operation says more than the code's usual example. */
  errors?: Partial<Record<ErrorCode, Example>>;
  /** Location of each redirect answer, by status. */
  location?: Record<string, (baseUrl: string) => string>;
};

const result = (index: number, clientItemId: string, status: string, extra: Json = {}) => ({
  client_item_id: clientItemId,
  index,
  status,
  id: null,
  reason: null,
  resolved_movie_db_id: null,
  error: null,
  ...extra,
});

const bulkResult = (results: Json[], counters: Record<string, number>) => ({
  results,
  inserted: 0,
  updated: 0,
  removed: 0,
  skipped: 0,
  invalid: 0,
  deferred: 0,
  ...counters,
  idempotency_replayed: false,
});

const error = (code: string, message: string, extra: Json = {}) => ({ error: code, message, request_id: REQUEST_ID, ...extra });

const tokenResponse = {
  access_token: HINTS.access_token,
  refresh_token: HINTS.refresh_token,
  token_type: 'bearer',
  expires_in: 3600,
  refresh_expires_in: 2592000,
  scope: SCOPE,
};

const SYNC_ERRORS = {
  idempotency_conflict: { summary: 'Same key, another body', value: error('idempotency_conflict', 'This Idempotency-Key was used with a different body; use a new key for a new batch') },
  request_in_progress: { summary: 'The first request with this key is still running', value: error('request_in_progress', 'A request with this Idempotency-Key is still running; retry the same key shortly') },
  invalid_request: { summary: 'No Idempotency-Key', value: error('invalid_request', 'The Idempotency-Key header is required (8 to 200 characters), once') },
};

const OPERATIONS: Record<string, OperationExamples> = {
  'webhooks-create': {
    request: { 'application/json': { url: WEBHOOK_URL, kinds: ['history', 'ratings', 'authorization.revoked'] } },
    response: () => ({ ...WEBHOOK, lastAttemptAt: null, lastSuccessAt: null, lastStatus: null, secret: WEBHOOK_SECRET }),
    errors: { invalid_request: { summary: 'A destination webhooks may not reach', value: error('invalid_request', 'url: hooks.internal resolves to 10.0.0.7 (private), which webhooks may not reach') } },
  },
  'webhooks-update': { request: { 'application/json': { kinds: ['history', 'playback'] } } },
  'webhooks-deliveries': { response: (drawn) => ({ ...(drawn as Json), nextBefore: '9001' }) },
  'oauth-authorize': {
    location: {
      '302': () => `http://127.0.0.1:8765/callback?code=oHx8Qm2LkT5vZ9rW&state=af0ifjsldkj&scope=${encodeURIComponent(SCOPE)}`,
      '303': (base) => `${base}/oauth/interaction/jk_wxLLD2G-LCwJ4WjbGRdTj924G6dJT`,
    },
    errors: { invalid_request: { value: error('invalid_request', 'code_challenge_method must be S256') } },
  },
  'oauth-authorize-decision': {
    location: { '303': (base) => `${base}${PLATFORM_BASE}/oauth/authorize/Wq3nB8xT0kLm2ZcV5rYp` },
    errors: { not_found: { summary: 'No decision: an authorization request by POST', value: error('not_found', `No route for POST ${PLATFORM_BASE}/oauth/authorize`) } },
  },
  'oauth-token': {
    response: () => tokenResponse,
    request: {
      'application/json': {
        grant_type: 'authorization_code',
        client_id: CLIENT_ID,
        code: 'oHx8Qm2LkT5vZ9rW',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        redirect_uri: 'http://127.0.0.1:8765/callback',
      },
    },
    errors: {
      invalid_grant: { summary: 'Code used, expired or not this client\'s', value: error('invalid_grant', 'grant request is invalid') },
      invalid_scope: { summary: 'A scope outside the app\'s allowed scopes', value: error('invalid_scope', 'requested scope is not allowed') },
    },
  },
  'device-code': {
    request: { 'application/json': { client_id: CLIENT_ID, scope: SCOPE } },
    response: (drawn) => ({ ...(drawn as Json), expires_in: 600 }),
  },
  'playback-eventsTicket': {
    response: (drawn) => ({ ...(drawn as Json), expires_in: 60 }),
  },
  'lists-invitations': {
    response: () => ({ items: [{ listId: 7, name: 'Winter films', ownerUsername: 'bob', invitedAt: AT }] }),
  },
  'device-token': {
    response: () => ({ ...tokenResponse, username: 'alice' }),
    request: { 'application/json': { client_id: CLIENT_ID, device_code: HINTS.device_code } },
    errors: {
      authorization_pending: { summary: 'Not approved yet: poll again after `interval` seconds', value: error('authorization_pending', 'authorization request is still pending as the end-user hasn\'t yet completed the user interaction steps') },
      slow_down: { summary: 'Polled sooner than the interval: wait the new `interval`', value: error('slow_down', 'you are polling too quickly', { interval: 10 }) },
      expired: { summary: 'The device code is invalid or expired: start again', value: error('expired', 'device code is expired') },
    },
  },
  'auth-refresh': {
    response: () => tokenResponse,
    request: { 'application/json': { client_id: CLIENT_ID, refresh_token: HINTS.refresh_token } },
    errors: { invalid_grant: { value: error('invalid_grant', 'grant request is invalid') } },
  },
  'oauth-revoke': {
    request: { 'application/x-www-form-urlencoded': { token: HINTS.refresh_token, token_type_hint: 'refresh_token', client_id: CLIENT_ID } },
  },
  'sync-history': {
    request: {
      'application/json': {
        items: [
          { client_item_id: 'plex-1', movie_db_id: MOVIE, watched_at: '2025-05-03T19:42:11Z' },
          { client_item_id: 'plex-2', tv_db_id: SHOW_TVDB, season: 1, episode: 1, watched_at: '2025-05-02T20:00:00Z' },
          { client_item_id: 'plex-3', title: 'Spirited Away', year: 2001, watched_at: '2025-05-01T18:30:00+02:00' },
          { client_item_id: 'plex-4', movie_db_id: MOVIE, season: 1, watched_at: '2025-05-03T19:42:11Z' },
        ],
      },
    },
    response: () =>
      bulkResult(
        [
          result(0, 'plex-1', 'inserted', { id: 1201, resolved_movie_db_id: MOVIE }),
          result(1, 'plex-2', 'skipped', { id: 1187, reason: 'duplicate', resolved_movie_db_id: 1399 }),
          result(2, 'plex-3', 'deferred', { reason: 'unmatched' }),
          result(3, 'plex-4', 'invalid', { error: 'episode: season needs episode: a watch is of a movie or of one episode' }),
        ],
        { inserted: 1, skipped: 1, invalid: 1, deferred: 1 },
      ),
    errors: SYNC_ERRORS,
  },
  'sync-ratings': {
    request: {
      'application/json': {
        items: [
          { client_item_id: 'r-1', movie_db_id: MOVIE, rating: 9, rated_at: '2025-05-03T21:00:00Z' },
          { client_item_id: 'r-2', tv_db_id: SHOW_TVDB, type: 'show', season: 1, rating: 8 },
          { client_item_id: 'r-3', movie_db_id: 604, remove: true },
        ],
      },
    },
    response: () =>
      bulkResult(
        [
          result(0, 'r-1', 'inserted', { id: 88, resolved_movie_db_id: MOVIE }),
          result(1, 'r-2', 'updated', { id: 61, resolved_movie_db_id: 1399 }),
          result(2, 'r-3', 'removed', { id: 57, resolved_movie_db_id: 604 }),
        ],
        { inserted: 1, updated: 1, removed: 1 },
      ),
    errors: SYNC_ERRORS,
  },
  'sync-watchlist': {
    request: {
      'application/json': {
        items: [
          { client_item_id: 'w-1', movie_db_id: MOVIE },
          { client_item_id: 'w-2', title: 'Spirited Away', year: 2001 },
          { client_item_id: 'w-3', movie_db_id: 604, remove: true },
        ],
      },
    },
    response: () =>
      bulkResult(
        [
          result(0, 'w-1', 'inserted', { id: 311, resolved_movie_db_id: MOVIE }),
          result(1, 'w-2', 'skipped', { id: 305, reason: 'duplicate', resolved_movie_db_id: 129 }),
          result(2, 'w-3', 'skipped', { reason: 'absent', resolved_movie_db_id: 604 }),
        ],
        { inserted: 1, skipped: 2 },
      ),
    errors: SYNC_ERRORS,
  },
  'sync-other': {
    errors: { not_found: { value: error('not_found', 'Bulk sync of "collection" (history, ratings and watchlist can be synced) not found') } },
  },
  'sync-changes': {
    response: (_drawn, draw) => ({
      changes: [
        { resource: 'history', resourceId: '1201', op: 'upsert', changedAt: AT, data: { ...draw('HistoryItem'), id: 1201 } },
        { resource: 'ratings', resourceId: '88', op: 'upsert', changedAt: '2025-05-03T21:00:00.000Z', data: { ...draw('RatingItem'), id: 88, ratedAt: '2025-05-03T21:00:00.000Z', updatedAt: '2025-05-03T21:00:00.000Z' } },
        { resource: 'lists', resourceId: '7', op: 'delete', changedAt: '2025-05-03T21:05:00.000Z', data: null },
      ],
      nextCursor: CURSOR,
      hasMore: false,
    }),
  },
  'sync-snapshot': {
    response: (_drawn, draw) => ({ items: [{ ...draw('HistoryItem'), id: 1201 }], nextCursor: null, changesCursor: CURSOR }),
  },
  'playback-events': {
    response: () =>
      [
        'id: 1746301331000001',
        'event: playback.progress',
        `data: {"playback_session_id":"sess-3f2a9c71","state":"playing","watched":false,"media_type":"movie","movie_db_id":${MOVIE},"punchplay_id":"movie-${MOVIE}","title":"The Matrix","season":null,"episode":null,"episode_end":null,"progress":0.42,"position_seconds":3420,"duration_seconds":8160,"event_created_at":1746301331000,"device_id":"living-room-tv"}`,
        '',
        ': heartbeat',
        '',
        'id: 1746301390000002',
        'event: continue_watching.removed',
        'data: {"id":42}',
        '',
        '',
      ].join('\n'),
  },
};

// --- Error bodies per code -------------------------------------------------------------------------

/** The usual example of each code; typed by the table, so a new code needs its example here. */
const MESSAGES: Record<ErrorCode, string> = {
  invalid_request: 'Unrecognized key: "sort_by"',
  authorization_pending: 'authorization request is still pending as the end-user hasn\'t yet completed the user interaction steps',
  slow_down: 'you are polling too quickly',
  access_denied: 'The user denied the request',
  expired: 'device code is expired',
  invalid_grant: 'grant request is invalid',
  invalid_scope: 'requested scope is not allowed',
  unsupported_grant_type: 'unsupported grant_type requested',
  unsupported_response_type: 'unsupported response_type requested',
  unsupported_token_type: 'the token type is not supported',
  invalid_client: 'client authentication failed',
  invalid_token: 'A bearer access token is required',
  unauthorized_client: 'The app is unknown or inactive',
  insufficient_scope: 'This call needs the lists:write scope',
  first_party_only: 'This endpoint is reserved for official clients',
  app_owner_only: 'Only the app\'s owner manages its webhooks: this token\'s user does not own its app',
  not_found: 'List not found',
  request_timeout: 'Request body was not received within 10 seconds',
  conflict: 'The request conflicts with the current state',
  idempotency_conflict: 'This Idempotency-Key was used with a different body; use a new key for a new batch',
  idempotency_indeterminate: 'The outcome of the request with this Idempotency-Key is unknown',
  request_in_progress: 'A request with this Idempotency-Key is still running; retry the same key shortly',
  playback_state_conflict: 'A stopped session cannot be paused',
  payload_too_large: 'Request body is over the 65536-byte limit',
  media_not_found: 'No movie in the catalog matches this event',
  rate_limited: 'Too many requests: 120 allowed (token-writes); retry in 12 s',
  server_error: 'Temporary server failure',
};

/** What is not found, by the operation's tag (the usual message: lists). */
const NOT_FOUND_BY_TAG: Record<string, string> = {
  titles: `Movie ${MOVIE} not found`,
  history: 'History entry not found',
  ratings: `The movie ${MOVIE} not found`,
  collection: 'collection item 42 not found',
  notifications: 'Notification 1042 not found',
  playback: 'Continue Watching entry not found',
  'push devices': 'Push device 17 not found',
  webhooks: 'Webhook not found',
  account: 'connected app not found',
  users: 'User "alice" not found',
};

/** The example of `code` answered with `status` on `op` (platform body: the envelope with its extras). */
function platformError(code: ErrorCode, status: number, op: Json): Json {
  if (status === 431) return error(code, 'The request line and headers are over the 16 KiB limit');
  if (status === 503) {
    return op.operationId === 'playback-events'
      ? error(code, 'Live events are unavailable right now; retry shortly', { retry_after: 2 })
      : error(code, 'The service is starting (applying migrations); retry shortly', { retry_after: 2 });
  }
  switch (code) {
    case 'insufficient_scope': {
      const scope = ((op.security as SecurityRequirement[] | undefined) ?? []).map((r) => r[OAUTH2]?.[0]).find(Boolean) ?? 'profile:read';
      return error(code, `This call needs the ${scope} scope`, { required_scope: scope });
    }
    case 'not_found': {
      const tag = ((op.tags as string[] | undefined) ?? [])[0] ?? '';
      return error(code, NOT_FOUND_BY_TAG[tag] ?? MESSAGES[code]);
    }
    case 'rate_limited':
      return error(code, MESSAGES[code], { retry_after: 12 });
    case 'slow_down':
      return error(code, MESSAGES[code], { interval: 10 });
    default:
      return error(code, MESSAGES[code]);
  }
}

const PUBLIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  rate_limited: 'Too many requests: 60 allowed (public-search); retry in 12 s',
};

/**
 * The named examples of one error response: one per code it can carry, the operation's own where it
 * has one. On the public API the body is the message alone.
 */
export function errorExamples(op: Json, surface: 'platform' | 'public', status: number, codes: readonly ErrorCode[]): Record<string, Example> {
  const own = OPERATIONS[String(op.operationId)]?.errors ?? {};
  return Object.fromEntries(
    codes.map((code) => {
      const example = own[code] && status === statusOf(code) ? own[code] : { value: platformError(code, status, op) };
      const value = surface === 'public' ? { message: PUBLIC_MESSAGES[code] ?? String((example.value as Json).message) } : example.value;
      return [code, { summary: example.summary ?? code, value }];
    }),
  );
}

const HEADER_EXAMPLES: Record<string, unknown> = { RateLimitLimit: 300, RateLimitRemaining: 287, RateLimitReset: 1746301380, RequestId: REQUEST_ID, RetryAfter: 12 };

function setExample(media: Json, example: unknown): void {
  if (!('example' in media) && !('examples' in media)) media.example = example;
}

/** Puts an example on every response (and on the requests named above) of every operation. */
export function addExamples(doc: { paths?: unknown; components?: unknown }, baseUrl: string): void {
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const ctx: Ctx = { components, baseUrl, depth: 0 };
  const draw = (component: string) => sampleComponent(component, ctx) as Json;
  const headers = ((doc.components as Json | undefined)?.headers ?? {}) as Record<string, Json>;
  for (const [name, example] of Object.entries(HEADER_EXAMPLES)) if (headers[name]) headers[name].example = example;

  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const op of Object.values(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      const own = OPERATIONS[String(op.operationId)] ?? {};
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (status.startsWith('3')) {
          const location = own.location?.[status];
          if (location) {
            response.headers = {
              ...(response.headers as Json | undefined),
              Location: { description: 'Where the browser goes next', schema: { type: 'string', format: 'uri-reference' }, example: location(baseUrl) },
            };
          }
          continue;
        }
        // Errors have theirs already, one per code (errorExamples, written by openapi-errors.ts).
        if (!status.startsWith('2')) continue;
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          const drawn = type === 'application/json' ? sampleSchema(media.schema as Schema, ctx) : undefined;
          const value = own.response ? own.response(drawn, draw) : drawn;
          if (value !== undefined) setExample(media, value);
        }
      }
      const requestContent = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      for (const [type, value] of Object.entries(own.request ?? {})) {
        if (requestContent[type]) setExample(requestContent[type], value);
      }
    }
  }
}
