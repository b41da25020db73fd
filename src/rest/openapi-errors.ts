// The error answers of every operation of both OpenAPI documents, decided here and nowhere else. An
// operation lists what its request can run into, not a blanket list:
// - the pipeline (src/rest/app.ts): 400 `invalid_request` (input, a malformed request), 500
//   `server_error` and 503 `server_error` (the service still starting, src/rest/starting.ts) always; 429 `rate_limited` when a bucket counts it (`x-rate-limits`); 431 when it
//   takes parameters (Node refuses a request line and headers over 16 KiB, client-error.ts); 408
//   `request_timeout` and 413 `payload_too_large` when it takes a body or is a write (body.ts);
// - its policy: 401 `invalid_token` when it needs a token, 403 `insufficient_scope` when that token
//   needs a scope (both read from the operation's `security`), 403 `first_party_only` for official
//   apps only (`meta.official`), 404 `not_found` when its path has a parameter (`{id}`);
// - its own rules: the procedure's `meta.errors` (src/rpc/trpc.ts), or, for a route written by hand
//   (OAuth, server-sent events), the codes listed beside its description (openapi-oauth.ts, openapi-sse.ts).
// Each status is one response referencing the surface's envelope, with one example per code
// (openapi-examples.ts). test/fuzz.test.ts fails on a status an operation does not list.
import type { generateOpenApiDocument } from 'trpc-to-openapi';
import { statusOf, type ErrorCode } from '../core/errors.ts';
import { PROCEDURES, type Surface } from '../rpc/procedures.ts';
import { errorExamples } from './openapi-examples.ts';
import { OAUTH2, type SecurityRequirement } from './openapi-security.ts';

type Doc = ReturnType<typeof generateOpenApiDocument>;
type Json = Record<string, unknown>;

/** An error an operation answers: its code, and the status when it is not the code's own (431, 503). */
type ErrorAnswer = ErrorCode | { code: ErrorCode; status: number };

/** Errors of the routes written by hand, by operationId: only what their own rules add. */
export type HandWrittenErrors = Record<string, readonly ErrorAnswer[]>;

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid parameter or body',
  401: 'Missing or invalid credentials',
  403: 'The token lacks access',
  404: 'Not found',
  408: 'Body not received within 10 seconds',
  409: 'Conflict with the current state',
  413: 'Body over the size limit',
  422: 'Unprocessable',
  429: 'Too many requests; see Retry-After',
  431: 'Request line and headers over 16 KiB',
  500: 'Temporary server failure',
  503: 'Temporarily unavailable; see Retry-After',
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

const codeOf = (a: ErrorAnswer): ErrorCode => (typeof a === 'string' ? a : a.code);
const statusOfAnswer = (a: ErrorAnswer): number => (typeof a === 'string' ? statusOf(a) : a.status);

type Parameter = { in?: string };

/** The pipeline reads a write's body whether or not the operation documents one (`{}` where it takes none). */
const WRITES = new Set(['post', 'put', 'patch']);

/** What every request of the operation can run into before its own rules: the pipeline and its policy. */
function policyErrors(method: string, op: Json, official: boolean): ErrorAnswer[] {
  const params = (op.parameters ?? []) as Parameter[];
  const security = (op.security ?? []) as SecurityRequirement[];
  const bearer = security.filter((r) => OAUTH2 in r);
  // 503 while the service starts: the port is claimed first and answers every request so (starting.ts).
  const answers: ErrorAnswer[] = ['invalid_request', 'server_error', { code: 'server_error', status: 503 }];
  if (params.length) answers.push({ code: 'invalid_request', status: 431 });
  if (op.requestBody || WRITES.has(method)) answers.push('request_timeout', 'payload_too_large');
  if (((op['x-rate-limits'] ?? []) as unknown[]).length) answers.push('rate_limited');
  if (bearer.length) answers.push('invalid_token');
  if (bearer.some((r) => r[OAUTH2]!.length > 0)) answers.push('insufficient_scope');
  if (official) answers.push('first_party_only');
  // A value that names nothing, or one that spells no route at all (empty, `..`): 404 either way.
  if (params.some((p) => p.in === 'path')) answers.push('not_found');
  return answers;
}

/** Every status's codes, in status order, each code once. */
function byStatus(answers: readonly ErrorAnswer[]): Array<[number, ErrorCode[]]> {
  const grouped = new Map<number, ErrorCode[]>();
  for (const a of answers) {
    const codes = grouped.get(statusOfAnswer(a)) ?? [];
    if (!codes.includes(codeOf(a))) codes.push(codeOf(a));
    grouped.set(statusOfAnswer(a), codes);
  }
  return [...grouped].sort(([a], [b]) => a - b);
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Replaces the error responses of every operation (the generator's defaults, the placeholders of the
 * hand-written routes) with those it answers, and puts the rate-limit headers on its successes. Runs
 * once `security` and `x-rate-limits` are set. An operation with no declaration (a route written by
 * hand and missing from `handWritten`) is an error, not an operation without errors.
 */
export function documentErrors(doc: Doc, surface: Surface, handWritten: HandWrittenErrors): void {
  const envelope = { $ref: `#/components/schemas/${surface === 'platform' ? 'Error' : 'PublicError'}` };
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...(headerComponents as NonNullable<NonNullable<Doc['components']>['headers']>) } };
  for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const procedure = PROCEDURES.find((p) => p.surface === surface && p.rest?.method === method.toUpperCase() && p.rest.path === template);
      const own = procedure ? (procedure.meta.errors ?? []) : handWritten[String(op.operationId)];
      if (!own) throw new Error(`OpenAPI: ${method.toUpperCase()} ${template} declares no errors`);
      const responses = op.responses as Record<string, Json>;
      // A route written by hand may answer an error as a page (HTML): that form is kept, beside the
      // envelope when the status has codes too, alone when it has none.
      const pages: Record<string, Json> = {};
      for (const [status, response] of Object.entries(responses)) {
        if (status.startsWith('2')) response.headers = { ...rateLimitHeaders, ...(response.headers as Json | undefined) };
        else if (!status.startsWith('3')) {
          const content = Object.fromEntries(Object.entries((response.content ?? {}) as Json).filter(([type]) => type !== 'application/json'));
          if (Object.keys(content).length) pages[status] = { ...response, content };
          else delete responses[status];
        }
      }
      for (const [status, codes] of byStatus([...policyErrors(method, op, procedure?.meta.official === true), ...own])) {
        const other = (pages[String(status)]?.content ?? {}) as Json;
        const text = surface === 'platform' ? `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}` : (STATUS_TEXT[status] ?? 'Error');
        const page = pages[String(status)]?.description;
        responses[String(status)] = {
          description: page ? `${text}. Or (text/html): ${String(page)}` : text,
          headers: status === 429 || status === 503 ? { 'Retry-After': headerRef('RetryAfter'), ...rateLimitHeaders } : rateLimitHeaders,
          content: { ...other, 'application/json': { schema: envelope, examples: errorExamples(op, surface, status, codes) } },
        };
      }
    }
  }
}
