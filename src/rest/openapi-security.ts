// Security in the platform OpenAPI document: one `oauth2` scheme (the authorization server's real
// endpoints, the 16 scopes, the device flow in an extension) and, on every operation, the scopes it
// needs, read from the procedure's meta: `scope` (platformProcedure) is the one scope required;
// `anyScope` (procedures that check scopes themselves) lists scopes of which any one will do; `allScopes`
// (the full export) lists scopes the token needs every one of (one requirement naming them all).
import { normalizePath, type OpenApiRouter } from 'trpc-to-openapi';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../core/apps/scopes.ts';
import type { Scope } from '../core/schema/apps.ts';
import { DEVICE_TOKEN_PATH, OAUTH_ROUTES, REFRESH_PATH } from '../oauth/routes.ts';
import type { Meta } from '../rpc/trpc.ts';
import { listProcedures } from '../rpc/router-procedures.ts';

type Json = Record<string, unknown>;
export type SecurityRequirement = Record<string, string[]>;

export const OAUTH2 = 'oauth2';
export const EVENTS_TICKET = 'eventsTicket';
export const CALENDAR_FEED_TOKEN = 'calendarFeedToken';

/** The platform document's security schemes, with absolute URLs under `baseUrl`. */
export function platformSecuritySchemes(baseUrl: string) {
  const scopes = Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]]));
  return {
    [OAUTH2]: {
      type: 'oauth2' as const,
      description:
        'OAuth 2.0 access tokens (one hour), sent as `Authorization: Bearer <ACCESS_TOKEN>`. ' +
        'Authorization code with PKCE (S256 only) for websites and native apps; the device flow (`x-device-authorization`) ' +
        'for TVs, desktops and CLIs issues the same tokens. Public clients send `client_id` only; confidential clients also ' +
        `\`client_secret\`. A request asking no \`scope\` gets the app's allowed scopes. Metadata (RFC 8414): ` +
        `${baseUrl}/.well-known/oauth-authorization-server.`,
      flows: {
        authorizationCode: {
          authorizationUrl: `${baseUrl}${OAUTH_ROUTES.authorization}`,
          tokenUrl: `${baseUrl}${OAUTH_ROUTES.token}`,
          refreshUrl: `${baseUrl}${OAUTH_ROUTES.token}`,
          scopes,
          'x-usePkce': true,
        },
      },
      // OpenAPI 3.1 has no device flow (3.2 adds `deviceAuthorization` with these field names).
      'x-device-authorization': {
        deviceAuthorizationUrl: `${baseUrl}${OAUTH_ROUTES.device_authorization}`,
        tokenUrl: `${baseUrl}${DEVICE_TOKEN_PATH}`,
        refreshUrl: `${baseUrl}${REFRESH_PATH}`,
        scopes,
      },
    },
    [EVENTS_TICKET]: {
      type: 'apiKey' as const,
      in: 'query' as const,
      name: 'ticket',
      description:
        'Only for GET /playback/events from a browser EventSource, which cannot send the Authorization header: a single-use ticket from POST /playback/events/ticket.',
    },
    [CALENDAR_FEED_TOKEN]: {
      type: 'apiKey' as const,
      in: 'query' as const,
      name: 'token',
      description:
        'Only for GET /me/calendar.ics: the token in the feed URL that POST /me/calendar-feed answers. It reads that feed and nothing else; an access token does not read the feed.',
    },
  };
}

/** The requirement of a token holding `scope`; of a token holding any one of `scopes`; of any token. */
const needsScope = (scope: Scope): SecurityRequirement[] => [{ [OAUTH2]: [scope] }];
const needsAnyScope = (scopes: readonly Scope[]): SecurityRequirement[] => scopes.map((s) => ({ [OAUTH2]: [s] }));
const needsToken = (): SecurityRequirement[] => [{ [OAUTH2]: [] }];

/** What the procedure's meta asks of the token. Every platform procedure needs one (at least). */
function requirementOf(meta: Pick<Meta, 'scope' | 'anyScope' | 'allScopes'>): SecurityRequirement[] {
  if (meta.scope) return needsScope(meta.scope);
  if (meta.allScopes?.length) return [{ [OAUTH2]: [...meta.allScopes] }];
  if (meta.anyScope?.length) return needsAnyScope(meta.anyScope);
  return needsToken();
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Sets `security` on every operation: from the procedure's meta where a procedure serves it
 * (`authenticated`: the platform surface, where every procedure needs a token), none (`[]`) on every
 * public procedure. Operations written by hand (OAuth, server-sent events) carry their own and must.
 */
export function applySecurity(paths: Record<string, Json>, router: OpenApiRouter, authenticated: boolean): void {
  const fromMeta = new Map<string, SecurityRequirement[]>();
  for (const { meta } of listProcedures(router)) {
    // The procedures trpc-to-openapi serves and documents: those with an OpenAPI route not turned off.
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    fromMeta.set(`${meta.openapi.method.toLowerCase()} ${normalizePath(meta.openapi.path)}`, authenticated ? requirementOf(meta) : []);
  }
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const security = fromMeta.get(`${method} ${path}`);
      if (security) op.security = security;
      else if (!Array.isArray(op.security)) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} declares no security`);
    }
  }
}

/** A line for the operation's description: the scopes the call needs, in words. */
function scopeLine(security: SecurityRequirement[]): string {
  const scopes = security.map((r) => r[OAUTH2]).filter((s): s is string[] => Array.isArray(s));
  if (security.length === 0) return 'No token needed.';
  // The calendar feed: a token of its own in the query, never an access token.
  if (scopes.length === 0) return 'No access token: the token of its own URL.';
  if (scopes.length === 1 && scopes[0]!.length === 0) return 'Needs an access token (any scope).';
  const names = [...new Set(scopes.flat())].map((s) => `\`${s}\``);
  if (names.length === 1) return `Scope: ${names[0]}.`;
  // One requirement naming several scopes: the token needs them all.
  if (security.length === 1) return `Scopes: all of ${names.join(', ')}.`;
  return `Scope: any one of ${names.join(', ')}.`;
}

/** Adds the scope line to every operation's description (after what it says already). */
export function describeScopes(paths: Record<string, Json>): void {
  for (const item of Object.values(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op || !Array.isArray(op.security)) continue;
      const line = `**${scopeLine(op.security as SecurityRequirement[])}**`;
      op.description = op.description ? `${line}\n\n${String(op.description)}` : line;
    }
  }
}
