// fast-check arbitraries for fuzzing the API from its OpenAPI documents: values a JSON Schema allows
// (biased to small ids, which name rows that exist), and hostile values (NUL characters, integers past
// any column, dates PostgreSQL cannot read, wrong types, long and odd unicode strings). Each field of a
// generated value is hostile now and then, so a request mixes valid and hostile parts.
import fc from 'fast-check';

export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  default?: unknown;
};

export type Components = Record<string, Schema>;

const INT32_MAX = 2_147_483_647;

/** Strings that have hurt servers: NUL, control and bidi characters, escapes, paths, SQL, emoji. */
const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '%00',
  '',
  ' ',
  '\n\r\t',
  '\\',
  '"',
  "' OR 1=1 --",
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '\u202e\u200d\ufeff',
  '😀👩‍👩‍👧',
  '\ud800',
  'ｆｕｌｌ',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-05:00',
  '2026-02-30',
  '1e309',
  '-1',
  '2147483648',
  '9007199254740993',
  'null',
  'true',
];

const HOSTILE_NUMBERS = [0, -1, 1.5, -2_147_483_649, 2_147_483_648, 4_294_967_296, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE];

/** A value that breaks some rule of almost any field; NUL characters, the most common past failure, often. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null, [], {}, [1, 2], { a: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }).map((n) => 'x'.repeat(n * 1000)) },
  { weight: 3, arbitrary: fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`) },
);

const resolve = (schema: Schema, components: Components): Schema =>
  schema.$ref ? resolve(components[schema.$ref.split('/').pop()!] ?? {}, components) : schema;

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  if (s.format === 'date-time') return fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'date') return fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (s.format === 'uri') return fc.webUrl();
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 30, minLength + 30));
  const sized = fc.string({ minLength, maxLength });
  if (s.pattern) {
    // Matching the pattern or of the right length: both together is not something fast-check can
    // generate directly, and filtering for it can run for ever (a 20-character minimum, say).
    try {
      return fc.oneof(fc.stringMatching(new RegExp(s.pattern)), sized);
    } catch {
      // A pattern fast-check cannot generate from.
    }
  }
  return sized;
}

function numberArbitrary(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : (s.minimum ?? (integer ? -INT32_MAX : -1e6));
  const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : Number.EPSILON) : (s.maximum ?? (integer ? INT32_MAX : 1e6));
  if (!integer) return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  // Small values name rows that exist (list 1, history entry 2, ...); any value in range now and then.
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: lo, max: Math.min(hi, lo + 10) }) }, { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) });
}

/**
 * Values `schema` allows, except that each field is replaced by a hostile value with probability about
 * `hostility` (0 gives valid values only, as far as the schema says).
 */
export function schemaArbitrary(schema: Schema | undefined, components: Components, hostility: number, depth = 0): fc.Arbitrary<unknown> {
  const valid = validArbitrary(resolve(schema ?? {}, components), components, hostility, depth);
  if (hostility <= 0) return valid;
  const weight = Math.max(1, Math.round((1 - hostility) / hostility));
  return fc.oneof({ weight, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
}

function validArbitrary(s: Schema, components: Components, hostility: number, depth: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const options = s.anyOf ?? s.oneOf;
  if (options?.length) return fc.oneof(...options.map((o) => schemaArbitrary(o, components, hostility, depth)));
  if (s.allOf?.length) return schemaArbitrary(s.allOf[0], components, hostility, depth);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => validArbitrary({ ...s, type }, components, hostility, depth)));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = s.minItems ?? 0;
      return fc.array(schemaArbitrary(s.items, components, hostility, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'object': {
      if (!s.properties || depth > 4) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const shape = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, schemaArbitrary(v, components, hostility, depth + 1)]));
      return fc.record(shape, { requiredKeys: (s.required ?? []).filter((k) => k in shape) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** `n` arrays inside one another, as JSON text. */
const nestedArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** Whole JSON bodies that are wrong as a whole: too deep, not an object, prototype keys. */
export const hostileBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(nestedArrays(65), `{"a":${nestedArrays(64)}}`, nestedArrays(20_000), '{"items":' + '{"a":'.repeat(70) + '1' + '}'.repeat(71)),
  fc.constantFrom('[]', '"text"', '1', 'null', 'true', '{', '{"a":1,}', '\u0000', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
