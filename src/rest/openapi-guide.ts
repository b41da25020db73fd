// The words of the OpenAPI documents that no procedure carries: each document's introduction (Markdown,
// shown at the top of /docs), with the platform's getting-started, and the description of every tag.
import { SCOPE_DESCRIPTIONS, SCOPES } from '../core/apps/scopes.ts';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';

type Tag = { name: string; description: string };

/** Every tag an operation uses, in the order the reference shows them. */
const TAGS: Record<'platform' | 'public', Tag[]> = {
  platform: [
    { name: 'oauth', description: 'The authorization server: authorization code with PKCE, the device flow, refresh and revocation. These calls take no bearer token.' },
    { name: 'account', description: 'Who the token acts for (`GET /me`: user, app and granted scopes), and the apps holding grants for the user (official apps only).' },
    { name: 'titles', description: 'Title, season and episode details with the user\'s state on them, and the calendar of upcoming episodes.' },
    { name: 'history', description: 'Watch history: log watches of movies, episodes, seasons or whole shows; read, move and remove entries.' },
    { name: 'ratings', description: 'Ratings (1 to 10), favourites and show statuses (`planned` is the planning list), and their pages.' },
    { name: 'lists', description: 'Custom lists and the watchlist: items, order, likes and collaborators.' },
    { name: 'collection', description: 'The user\'s physical and digital collection, by format and season.' },
    { name: 'sync', description: 'Bulk writes with an `Idempotency-Key` (history, ratings, watchlist), the durable change feed of all the user\'s data, and per-resource snapshots to start it from.' },
    { name: 'playback', description: 'Playback events from players (scrobbling), Continue Watching, and the live event stream.' },
    { name: 'profile', description: 'The user\'s profile and app preferences, the profile home (deprecated) and community statistics.' },
    { name: 'notifications', description: 'The notification inbox, unread count, marking read, and preferences per kind.' },
    { name: 'trophies', description: 'Trophies earned from history, ratings and lists, with progress and totals.' },
    { name: 'push devices', description: 'Mobile push registrations. Official apps only (others get 403 `first_party_only`).' },
    { name: 'webhooks', description: 'Signed webhooks of the token\'s own app (Standard Webhooks): subscriptions, test messages, secret rotation and the delivery log. Only for a token whose user owns its app (others get 403 `app_owner_only`).' },
  ],
  public: [
    { name: 'catalog', description: 'Search, discover and trending titles of the public catalog.' },
    { name: 'users', description: 'Public profiles (a private profile is 404, exactly like an unknown username).' },
    { name: 'community', description: 'Community-wide figures.' },
  ],
};

/** The document's `tags`: those its operations use, described, in TAGS order (an undescribed one last). */
export function documentTags(surface: 'platform' | 'public', used: Iterable<string>): Array<{ name: string; description?: string }> {
  const usedSet = new Set(used);
  const known = TAGS[surface].filter((t) => usedSet.has(t.name));
  const unknown = [...usedSet].filter((name) => !TAGS[surface].some((t) => t.name === name)).map((name) => ({ name }));
  return [...known, ...unknown];
}

const scopeTable = ['| Scope | Allows |', '|---|---|', ...SCOPES.map((s) => `| \`${s}\` | ${SCOPE_DESCRIPTIONS[s]} |`)].join('\n');

/** The platform document's introduction: what it is, how to get a token, the first call, the conventions. */
export function platformGuide(baseUrl: string): string {
  const api = `${baseUrl}${PLATFORM_BASE}`;
  return `Authenticated, scope-gated reads and writes for one user, and the OAuth and device-code endpoints.

## Getting started

**1. Register an app.** Sign up at [${baseUrl}/account/sign-up](${baseUrl}/account/sign-up) (or sign in at [${baseUrl}/account](${baseUrl}/account)), then register the app at [${baseUrl}/account/apps](${baseUrl}/account/apps): a name, its redirect URIs (for a CLI, \`http://127.0.0.1:8765/callback\` will do), *public* or *confidential*, and the scopes it may ask for. The app's page shows its \`client_id\` and, for a confidential app, its client secret, once. A public app (TVs, phones, CLIs) has no secret: \`client_id\` and PKCE only.

The operator of the service can register apps with the admin CLI instead (the only way when it runs with \`APP_REGISTRATION=closed\`, and the way to make an official app):

\`\`\`sh
npm run --silent admin -- app:create --name "My TV app" --redirect-uri http://127.0.0.1:8765/callback --scopes "profile:read history:read history:write"
\`\`\`

It prints \`{"client_id", "client_secret", "allowed_scopes"}\`: a public app (\`client_secret\` null) unless made with \`--confidential\`; no \`--scopes\` allows all 16.

**2. Get a token with the device flow** (TVs, desktops, CLIs). Ask for a device code:

\`\`\`sh
curl -s -X POST ${api}/auth/device/code -H 'content-type: application/json' \\
  -d '{"client_id":"CLIENT_ID","scope":"profile:read history:read"}'
\`\`\`

Show the user \`user_code\` and \`verification_uri\` (or the QR code of \`verification_uri_qr\`, which opens \`verification_uri_complete\`); they sign in there and allow the app. Meanwhile poll every \`interval\` seconds:

\`\`\`sh
curl -s -X POST ${api}/auth/device/token -H 'content-type: application/json' \\
  -d '{"client_id":"CLIENT_ID","device_code":"DEVICE_CODE"}'
\`\`\`

It answers 400 \`authorization_pending\` until the user allows (\`slow_down\` with a longer \`interval\` when polled too soon, \`expired\` when the code is spent), then \`access_token\`, \`refresh_token\` and \`expires_in\`. Websites and native apps use the authorization code flow with PKCE (S256) instead: the \`oauth2\` security scheme below has its URLs.

**3. Make the first call** with the access token:

\`\`\`sh
curl -s ${api}/me -H 'authorization: Bearer ACCESS_TOKEN'
\`\`\`

**4. Keep the token fresh.** Access tokens live one hour. Refresh before \`expires_in\` runs out or on a 401: device tokens at \`POST /auth/refresh\`, others at \`POST /oauth/token\` with \`grant_type=refresh_token\`. Every refresh returns a new \`refresh_token\`: keep it and drop the old one (presenting a used one revokes the whole chain).

To try calls from this page: register a redirect URI \`${baseUrl}/docs/assets/oauth2-redirect.html\` for your app, then use **Authorize** with its \`client_id\` and the scopes you need.

## Scopes

Each operation names the scope its token needs: the first line of its description, and \`security\` in the document (\`oauth2\` with one scope; several entries when any one of them will do). A token without it gets 403 \`insufficient_scope\` with \`required_scope\`.

${scopeTable}

## Conventions

- Errors are \`{error, message, request_id}\` (plus \`required_scope\` on 403 \`insufficient_scope\`); every response carries \`X-Service-Request-Id\` and the \`X-RateLimit-*\` headers, a 429 also \`Retry-After\`.
- Pages answer \`{items, nextCursor}\`: pass \`nextCursor\` back as \`cursor\` with every other parameter unchanged until it is absent.
- Bulk sync (\`POST /sync/history\`, \`/sync/ratings\`, \`/sync/watchlist\`) needs an \`Idempotency-Key\`; every item gets its own result.
- The change feed (\`GET /me/sync/changes\`) delivers every change of the user's data at least once: apply each idempotently keyed on \`resource\` and \`resourceId\`.
- Each operation's \`x-rate-limits\` lists the rate-limit buckets that count it.`;
}

/** The public document's introduction. */
export function publicGuide(baseUrl: string): string {
  return `Unauthenticated, read-only: catalog search, trending and discover, public profiles and the community overview.

No token is needed: for example \`curl '${baseUrl}${PUBLIC_BASE}/catalog/search?q=spirited%20away'\`. Errors are \`{message}\`; every response carries \`X-Service-Request-Id\` and the \`X-RateLimit-*\` headers, counted per client address. The platform API (${baseUrl}${PLATFORM_BASE}/openapi.json) has the getting-started for apps acting for a user.`;
}
