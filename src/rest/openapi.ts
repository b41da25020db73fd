// The OpenAPI 3.1 documents of both API surfaces, generated from the procedures, then post-processed so
// every error response references the spec's error envelope. Routes that live only in Express (OAuth,
// SSE) are added to the platform document in `expressOnlyPaths`.
import { generateOpenApiDocument, type OpenApiRouter } from 'trpc-to-openapi';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';
import { oauthPaths, oauthSchemas } from './openapi-oauth.ts';
import { ssePaths } from './openapi-sse.ts';
import { describeLimit } from '../core/limits/docs.ts';
import { LIMITS } from '../core/limits/table.ts';

export const API_VERSION = '1.0.0-beta.4';

type Doc = ReturnType<typeof generateOpenApiDocument>;
type Json = Record<string, unknown>;

const platformError = {
  type: 'object',
  description: 'Error envelope of the platform API. Extra properties may appear.',
  required: ['error', 'message', 'request_id'],
  properties: {
    error: { type: 'string', description: 'Machine code (see the error code table).' },
    message: { type: 'string' },
    request_id: { type: ['string', 'null'] },
    required_scope: { type: 'string', description: 'Present on insufficient_scope.' },
  },
  additionalProperties: true,
} as const satisfies Json;

const publicError = {
  type: 'object',
  description: 'Error body of the public API.',
  required: ['message'],
  properties: { message: { type: 'string' } },
  additionalProperties: true,
} as const satisfies Json;

const STATUS_TEXT: Record<string, string> = {
  '400': 'Invalid parameter or body (`invalid_request`)',
  '401': 'Missing or invalid credentials',
  '403': 'The token lacks access',
  '404': 'Not found (`not_found`)',
  '408': 'Body not received within 10 seconds',
  '409': 'Conflict with the current state',
  '413': 'Body over the size limit',
  '422': 'Unprocessable',
  '429': 'Too many requests; see Retry-After',
  '500': 'Temporary server failure (`server_error`)',
};

const headerComponents = {
  RateLimitLimit: { description: 'Ceiling of the most constraining bucket', schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Requests left in that bucket', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Unix seconds when that window resets', schema: { type: 'integer' } },
  RequestId: { description: 'Request id, also in the error body', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};
const headerRef = (name: keyof typeof headerComponents) => ({ $ref: `#/components/headers/${name}` });

const rateLimitHeaders = {
  'X-RateLimit-Limit': headerRef('RateLimitLimit'),
  'X-RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'X-RateLimit-Reset': headerRef('RateLimitReset'),
  'X-Service-Request-Id': headerRef('RequestId'),
};

/** Makes every non-2xx response of every operation reference the envelope, and documents 429 and the headers. */
function useEnvelope(doc: Doc, schemaName: string, extraStatuses: string[]): void {
  const ref = { $ref: `#/components/schemas/${schemaName}` };
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...(headerComponents as NonNullable<NonNullable<Doc["components"]>["headers"]>) } };
  for (const item of Object.values(doc.paths ?? {}) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const responses = op.responses as Json;
      for (const status of extraStatuses) responses[status] ??= {};
      for (const [status, response] of Object.entries(responses)) {
        const r = response as Json;
        if (status.startsWith('2')) {
          r.headers = { ...rateLimitHeaders, ...(r.headers as Json | undefined) };
          continue;
        }
        if (status.startsWith('3')) continue;
        responses[status] = {
          description: STATUS_TEXT[status] ?? (r.description as string | undefined) ?? 'Error',
          headers: status === '429' ? { 'Retry-After': headerRef('RetryAfter'), ...rateLimitHeaders } : rateLimitHeaders,
          content: { 'application/json': { schema: ref } },
        };
      }
      delete responses.default;
    }
  }
}

/** Each operation names the rate limits that count it (`x-rate-limits`, made from the limits table). */
function annotateLimits(doc: Doc, surface: 'platform' | 'public'): void {
  for (const [template, item] of Object.entries(doc.paths ?? {}) as Array<[string, Json]>) {
    const sample = template.replace(/\{[^}]+\}/g, 'x');
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const authenticated = Array.isArray(op.security) && op.security.length > 0;
      const limits = LIMITS.filter((l) => {
        if (l.surface !== surface) return false;
        if (l.applies === 'unauthenticated') return !authenticated;
        if (l.applies) return authenticated && (l.applies === 'all' || (l.applies === 'reads') === (method === 'get'));
        return l.method === method.toUpperCase() && !!l.path?.test(sample);
      });
      op['x-rate-limits'] = limits.map((l) => ({ bucket: l.id, limit: l.points, window_seconds: l.seconds, per: l.key }));
      const words = limits.map((l) => describeLimit(l)).join('; ');
      if (words) op.description = `${op.description ? `${String(op.description)}\n\n` : ''}Rate limits: ${words}.`;
    }
  }
}

export function publicDocument(router: OpenApiRouter, baseUrl: string): Doc {
  const doc = generateOpenApiDocument(router, {
    title: 'Media Tracking Public API',
    description: 'Unauthenticated, read-only: catalog search, trending and discover, public profiles and the community overview.',
    version: API_VERSION,
    baseUrl: `${baseUrl}${PUBLIC_BASE}`,
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, PublicError: publicError as Json } };
  useEnvelope(doc, 'PublicError', ['400', '429', '500']);
  annotateLimits(doc, 'public');
  return doc;
}

export function platformDocument(router: OpenApiRouter, baseUrl: string): Doc {
  const doc = generateOpenApiDocument(router, {
    title: 'Media Tracking Platform API',
    description: 'Authenticated, scope-gated reads and writes for one user, and the OAuth and device-code endpoints.',
    version: API_VERSION,
    baseUrl: `${baseUrl}${PLATFORM_BASE}`,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'OAuth 2.0 access token (one hour).' },
    },
  });
  // The authorization server's routes are Express-only: added by hand (openapi-oauth.ts).
  doc.paths = { ...(oauthPaths as NonNullable<Doc['paths']>), ...(ssePaths as NonNullable<Doc['paths']>), ...doc.paths };
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...(oauthSchemas as Json), Error: platformError as Json } };
  useEnvelope(doc, 'Error', ['400', '401', '403', '429', '500']);
  annotateLimits(doc, 'platform');
  return doc;
}
