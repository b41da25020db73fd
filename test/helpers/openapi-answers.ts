// Checks an answer against what an OpenAPI document says of its operation: the status is one of the
// operation's `responses`, the media type one of that response's, and a JSON body valid against its
// schema (the error envelope's `error` one of its enum included). The schemas are the document's own,
// read by a JSON Schema 2020-12 validator (OpenAPI 3.1 schemas are JSON Schema), `$ref`s and all.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Media = { schema?: unknown };
type Response = { content?: Record<string, Media> };
export type DocumentedOperation = { responses: Record<string, Response> };
export type Answer = { status: number; contentType: string; text: string };

/** A JSON pointer segment in a URI fragment. */
const segment = (s: string) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'));

/**
 * A checker for the answers of `doc`'s operations: the problem with an answer in words, or undefined
 * when the document says it.
 */
export function answerChecker(doc: { paths: Record<string, Record<string, DocumentedOperation>> }) {
  // strict: false lets the OpenAPI keywords a JSON Schema validator does not know (example,
  // discriminator) pass as annotations.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, logger: false });
  addFormats.default(ajv);
  ajv.addSchema(doc, 'doc');
  const compiled = new Map<string, ValidateFunction>();
  /** The validator of `schema`, found at `pointer`; a schema that only names a component shares its validator (the envelope of every error). */
  const validator = (schema: unknown, pointer: string) => {
    const ref = (schema as { $ref?: unknown }).$ref;
    const key = typeof ref === 'string' && ref.startsWith('#/') && Object.keys(schema as object).length === 1 ? ref : `#${pointer}`;
    let v = compiled.get(key);
    if (!v) {
      v = ajv.compile({ $ref: `doc${key}` });
      compiled.set(key, v);
    }
    return v;
  };

  return (template: string, method: string, a: Answer): string | undefined => {
    const op = doc.paths[template]?.[method];
    if (!op) return `no operation ${method.toUpperCase()} ${template} in the document`;
    const response = op.responses[String(a.status)];
    if (!response) return `status ${a.status} is not in the operation's responses (${Object.keys(op.responses).join(', ')})`;
    if (a.status >= 300 && a.status < 400) return undefined;
    const content = response.content ?? {};
    const type = a.contentType.split(';')[0]!.trim();
    if (Object.keys(content).length === 0) return a.text === '' ? undefined : `status ${a.status} documents no body, got ${type || 'no type'}`;
    if (!content[type]) return `status ${a.status} answers ${Object.keys(content).join(' or ')}, got ${type || 'no type'}`;
    if (type !== 'application/json') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return `status ${a.status}: the body is not JSON`;
    }
    const validate = validator(content[type].schema ?? {}, `/paths/${segment(template)}/${method}/responses/${a.status}/content/${segment(type)}/schema`);
    if (validate(body)) return undefined;
    return `status ${a.status}: the body does not match its schema: ${ajv.errorsText(validate.errors)}`;
  };
}
