// Requests made from an OpenAPI operation for fuzzing: path, query and header parameters and the body
// generated from their schemas (schema-arbitrary.ts), partly hostile, with the bearer token when the
// operation needs one; and sending one over real HTTP.
import fc from 'fast-check';
import { hostileBody, schemaArbitrary, type Components, type Schema } from './schema-arbitrary.ts';

type Parameter = { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: Schema };
export type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  security?: unknown[];
};

export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body?: string };
export type FuzzAnswer = { status: number; contentType: string; requestId: string | null; text: string };

/** Share of fields replaced by a hostile value. */
const HOSTILITY = 0.2;

/** A value as text in a URL or a header. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v)).toWellFormed();
/** What fetch can send as a header value (it refuses control characters and anything past Latin-1). */
const asHeader = (v: unknown): string => asText(v).replace(/[^\x20-\x7e]/g, '?').trim();

function bodyArbitrary(op: Operation, components: Components): fc.Arbitrary<{ type: string; text: string } | undefined> {
  const content = op.requestBody?.content;
  if (!content) return fc.constant(undefined);
  const json = content['application/json'];
  if (json) {
    return fc.oneof(
      { weight: 4, arbitrary: schemaArbitrary(json.schema, components, HOSTILITY).map((v) => ({ type: 'application/json', text: JSON.stringify(v) ?? 'null' })) },
      { weight: 1, arbitrary: hostileBody.map((text) => ({ type: 'application/json', text })) },
    );
  }
  const form = content['application/x-www-form-urlencoded'];
  return schemaArbitrary(form?.schema, components, HOSTILITY).map((v) => {
    const fields: Array<[string, string]> = v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => [k.toWellFormed(), asText(x)]) : [['value', asText(v)]];
    return { type: 'application/x-www-form-urlencoded', text: new URLSearchParams(fields).toString() };
  });
}

/** Requests for `method template` under `base`, as `token` (none: null) when the operation is authenticated. */
export function requestArbitrary(base: string, template: string, method: string, op: Operation, components: Components, token: string | null): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters ?? [];
  const value = (p: Parameter) => schemaArbitrary(p.schema, components, HOSTILITY);
  const optional = (p: Parameter) => (p.required ? value(p) : fc.option(value(p), { nil: undefined }));
  const pathValues = fc.tuple(...params.filter((p) => p.in === 'path').map((p) => value(p).map((v) => [p.name, v] as const)));
  const queryValues = fc.tuple(...params.filter((p) => p.in === 'query').map((p) => optional(p).map((v) => [p.name, v] as const)));
  const headerValues = fc.tuple(...params.filter((p) => p.in === 'header').map((p) => optional(p).map((v) => [p.name, v] as const)));
  return fc.record({ path: pathValues, query: queryValues, headers: headerValues, body: bodyArbitrary(op, components) }).map((g) => {
    let path = template;
    for (const [name, v] of g.path) path = path.replace(`{${name}}`, encodeURIComponent(asText(v)));
    const query = new URLSearchParams();
    for (const [name, v] of g.query) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) query.append(name, asText(item));
    }
    const headers: Record<string, string> = {};
    for (const [name, v] of g.headers) if (v !== undefined) headers[name.toLowerCase()] = asHeader(v);
    if (op.security?.length && token !== null) headers.authorization = `Bearer ${token}`;
    if (g.body) headers['content-type'] = g.body.type;
    const search = query.toString();
    return { method: method.toUpperCase(), path: `${base}${path}${search ? `?${search}` : ''}`, headers, ...(g.body ? { body: g.body.text } : {}) };
  });
}

/** Sends `r`; an event stream is closed as soon as it opens (its answer is the 200 and the headers). */
export async function send(baseUrl: string, r: FuzzRequest): Promise<FuzzAnswer> {
  const res = await fetch(`${baseUrl}${r.path}`, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  const contentType = res.headers.get('content-type') ?? '';
  const requestId = res.headers.get('x-service-request-id');
  if (contentType.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, contentType, requestId, text: '' };
  }
  return { status: res.status, contentType, requestId, text: await res.text() };
}
