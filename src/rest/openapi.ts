// The OpenAPI 3.1 documents of both API surfaces, generated from the procedures, then post-processed so
// every operation says its security and scopes (openapi-security.ts) and its rate limits
// (openapi-limits.ts), lists exactly the errors it answers in the envelope (openapi-errors.ts, with
// platformError and publicError below), has examples (openapi-examples.ts), and the sync routes show
// their typed shapes (openapi-sync.ts). Routes that live only in Express (OAuth, SSE) are added to the
// platform document by hand (openapi-oauth.ts, openapi-sse.ts).
import { generateOpenApiDocument, type OpenApiRouter } from 'trpc-to-openapi';
import { PLATFORM_BASE, PUBLIC_BASE } from './envelope.ts';
import { ERROR_CODES } from '../core/errors.ts';
import { oauthErrors, oauthPaths, oauthSchemas } from './openapi-oauth.ts';
import { documentErrors } from './openapi-errors.ts';
import { sseErrors, ssePaths } from './openapi-sse.ts';
import { calendarFeedErrors, calendarFeedPaths } from './openapi-calendar-feed.ts';
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
    error: { type: 'string', enum: ERROR_CODES, description: 'Machine code. Each error response of an operation lists the codes it can carry.' },
    message: { type: 'string' },
    request_id: { type: ['string', 'null'] },
    required_scope: { type: 'string', description: 'Present on insufficient_scope: a scope the call needs.' },
    retry_after: { type: 'integer', description: 'Present on rate_limited and on 503: seconds to wait, as in Retry-After.' },
    interval: { type: 'integer', description: 'Present on slow_down: the seconds to wait between polls from now on.' },
  },
  additionalProperties: true,
} as const satisfies Json;

/** The public API says no more than the message: no code, no request id (the header has it). */
const publicError = {
  type: 'object',
  description: 'Error body of the public API: the message only. The status tells the kind of error; X-Service-Request-Id the request.',
  required: ['message'],
  properties: { message: { type: 'string' } },
  additionalProperties: false,
} as const satisfies Json;

const LICENSE = { name: 'MIT', identifier: 'MIT' };
const contact = (baseUrl: string) => ({ name: 'API reference', url: `${baseUrl}/docs` });

/**
 * What both documents get once generated: each operation's security, its rate limits (which read
 * `security`), its errors (which read both), its scopes in words, examples, described tags, and no
 * component that nothing references.
 */
function complete(doc: Doc, router: OpenApiRouter, surface: 'platform' | 'public', baseUrl: string): void {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  applySecurity(paths, router, surface === 'platform');
  annotateLimits(doc, surface);
  documentErrors(doc, surface, surface === 'platform' ? { ...oauthErrors, ...sseErrors, ...calendarFeedErrors } : {});
  if (surface === 'platform') describeScopes(paths);
  addExamples(doc, baseUrl);
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
  complete(doc, router, 'public', baseUrl);
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
  doc.paths = { ...(oauthPaths as NonNullable<Doc['paths']>), ...(ssePaths as NonNullable<Doc['paths']>), ...(calendarFeedPaths as NonNullable<Doc['paths']>), ...doc.paths };
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...(oauthSchemas as Json), Error: platformError as Json } };
  documentSync(doc.paths as Record<string, Json>, doc.components.schemas as Record<string, unknown>);
  complete(doc, router, 'platform', baseUrl);
  return doc;
}
