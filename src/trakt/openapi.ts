// /trakt/openapi.json: the facade's routes as an OpenAPI 3.1 document of their own, made from the route
// table (route.ts), so a route cannot be served without being listed. Shapes are Trakt API v2's (its
// published documentation); the document names the routes, their parameters, headers and statuses.
import type { TraktRoute } from './route.ts';

const STATUS_TEXT: Record<number, string> = {
  200: 'Success',
  201: 'Created',
  204: 'No content',
  400: 'Bad request (or, on the device token poll, pending)',
  401: 'Unauthorized: a missing, invalid, expired or revoked access token',
  403: 'Forbidden: trakt-api-key names no active app, or the token lacks the scope',
  404: 'Not found',
  405: 'Method not found',
  409: 'Conflict (already checked in or scrobbled; a key in use)',
  410: 'Expired',
  412: 'Precondition failed: use application/json',
  418: 'Denied',
  420: 'Account limit exceeded',
  422: 'Unprocessable entity: validation errors',
  423: 'Locked user account',
  429: 'Rate limit exceeded: see Retry-After and X-Ratelimit',
  501: 'Not implemented',
};

const COMMON = [401, 403, 404, 429];

export function traktDocument(routes: readonly TraktRoute[], baseUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const headers = r.keyless
      ? []
      : [
          { name: 'trakt-api-key', in: 'header', required: true, schema: { type: 'string' }, description: 'Your app\'s client_id.' },
          { name: 'trakt-api-version', in: 'header', required: false, schema: { type: 'string', enum: ['2'] } },
        ];
    const paging = r.paged
      ? [
          { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
        ]
      : [];
    const ok = r.method === 'DELETE' || r.statuses?.includes(204) ? 204 : r.statuses?.includes(201) ? 201 : 200;
    const statuses = [...new Set([ok, ...COMMON, ...(r.statuses ?? [])])].sort((a, b) => a - b);
    const responses = Object.fromEntries(
      statuses.map((s) => [
        String(s),
        {
          description: STATUS_TEXT[s] ?? String(s),
          ...(r.paged && s === 200
            ? { headers: Object.fromEntries(['Page', 'Limit', 'Page-Count', 'Item-Count'].map((h) => [`X-Pagination-${h}`, { schema: { type: 'integer' } }])) }
            : {}),
        },
      ]),
    );
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      tags: [r.tag],
      ...(r.auth === 'none' ? {} : { security: r.auth === 'required' ? [{ bearer: [] }] : [{}, { bearer: [] }] }),
      parameters: [...params, ...headers, ...paging],
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trakt-compatible API',
      version: '2',
      description: 'Trakt API v2 served over this service\'s data: point an app written for Trakt at this base URL. What differs is in docs/trakt-compatibility.md.',
    },
    servers: [{ url: `${baseUrl}/trakt` }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /trakt/oauth/token or /trakt/oauth/device/token.' } } },
    paths,
  };
}
