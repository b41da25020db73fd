// The OpenAPI 3.1 documents of both API surfaces, generated from the procedures, then post-processed so
// every error response references the error envelope (platformError, publicError below), every operation says its security and
// scopes (openapi-security.ts) and has examples (openapi-examples.ts), and the sync routes show their
// typed shapes (openapi-sync.ts). Routes that live only in Express (OAuth, SSE) are added to the
// platform document by hand (openapi-oauth.ts, openapi-sse.ts).
import { generateOpenApiDocument, type OpenApiRouter } from 'trpc-to-openapi';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';
import { oauthPaths, oauthSchemas } from './openapi-oauth.ts';
import { ssePaths } from './openapi-sse.ts';
import { annotateLimits } from './openapi-limits.ts';
import { addExamples } from './openapi-examples.ts';
import { documentTags, platformGuide, publicGuide } from './openapi-guide.ts';
import { applySecurity, describeScopes, platformSecuritySchemes } from './openapi-security.ts';
import { documentSync } from './openapi-sync.ts';

const API_VERSION = '1.0.0-beta.4';

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

const LICENSE = { name: 'MIT', identifier: 'MIT' };
const contact = (baseUrl: string) => ({ name: 'API reference', url: `${baseUrl}/docs` });

/**
 * What both documents get once generated and enveloped (before the rate limits are annotated, which
 * read `security`): each operation's security and its scopes in words, examples, described tags, and
 * no component that nothing references.
 */
function complete(doc: Doc, router: OpenApiRouter, surface: 'platform' | 'public', baseUrl: string): void {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  applySecurity(paths, router, surface === 'platform');
  if (surface === 'platform') describeScopes(paths);
  addExamples(doc, surface, baseUrl);
  const used = Object.values(paths).flatMap((item) => Object.values(item).flatMap((op) => ((op as Json | undefined)?.tags as string[] | undefined) ?? []));
  doc.tags = documentTags(surface, used);
  dropUnusedComponents(doc);
}

/** Removes the schemas no operation reaches (e.g. the generator's own error shapes, replaced by the envelope). */
function dropUnusedComponents(doc: Doc): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  visit(doc.components?.headers);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  const schemes = doc.components?.securitySchemes;
  if (schemes && Object.keys(schemes).length === 0) delete doc.components!.securitySchemes;
}

export function publicDocument(router: OpenApiRouter, baseUrl: string): Doc {
  const doc = generateOpenApiDocument(router, {
    title: 'Media Tracking Public API',
    description: publicGuide(baseUrl),
    version: API_VERSION,
    baseUrl: `${baseUrl}${PUBLIC_BASE}`,
    license: LICENSE,
    contact: contact(baseUrl),
    securitySchemes: {},
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, PublicError: publicError as Json } };
  useEnvelope(doc, 'PublicError', ['400', '429', '500']);
  complete(doc, router, 'public', baseUrl);
  annotateLimits(doc, 'public');
  return doc;
}

export function platformDocument(router: OpenApiRouter, baseUrl: string): Doc {
  const doc = generateOpenApiDocument(router, {
    title: 'Media Tracking Platform API',
    description: platformGuide(baseUrl),
    version: API_VERSION,
    baseUrl: `${baseUrl}${PLATFORM_BASE}`,
    license: LICENSE,
    contact: contact(baseUrl),
    securitySchemes: platformSecuritySchemes(baseUrl),
  });
  // The authorization server's routes are Express-only: added by hand (openapi-oauth.ts).
  doc.paths = { ...(oauthPaths as NonNullable<Doc['paths']>), ...(ssePaths as NonNullable<Doc['paths']>), ...doc.paths };
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...(oauthSchemas as Json), Error: platformError as Json } };
  documentSync(doc.paths as Record<string, Json>, doc.components.schemas as Record<string, unknown>);
  useEnvelope(doc, 'Error', ['400', '401', '403', '429', '500']);
  complete(doc, router, 'platform', baseUrl);
  annotateLimits(doc, 'platform');
  return doc;
}
