// Typed inputs at the REST edge. A procedure's input is declared as a caller writes it (numbers,
// booleans), the same for /trpc and REST; only a REST request carries text where those belong, in its
// query string and its path. This module keeps that difference here, in two steps:
// - Pinning. trpc-to-openapi coerces every number, boolean, bigint and date field of a procedure's
//   input from strings on each request, by setting the flag on the schemas themselves
//   (`_zod.def.coerce`), JSON bodies included, and has no option to turn it off (its handler takes the
//   router, context, response meta, error hook and body size only). The schemas are shared with /trpc,
//   which would then coerce too ({"limit": "5"} as 5, {"isPublic": "false"} as true). At start-up each
//   such field's flag is pinned to what the schema author wrote (none coerce), so the write changes
//   nothing. Pinned by test/unit/input-types.test.ts.
// - Reading text. `restInputTypes` returns a reader that turns the query-string and path fields of a
//   procedure's raw input into the types its schema names: numbers from decimal number text, booleans
//   from the spellings of core/wire/booleans.ts. Other text is left as it is, for the schema to refuse
//   with its own message ("must be an integer"). The base procedure middleware (src/rpc/trpc.ts) runs
//   it on REST calls only, through tRPC's `getRawInput`, before any validator.
import type { OpenApiRouter } from 'trpc-to-openapi';
import { BOOLEAN_TEXT } from '../core/wire/booleans.ts';
import type { Context } from '../rpc/trpc.ts';
import { listProcedures } from '../rpc/router-procedures.ts';

type Def = Record<string, unknown> & { type?: string };
type ZodLike = { _zod?: { def?: Def } };
type Reading = 'number' | 'boolean';

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);
const defOf = (schema: unknown): Def | undefined => (schema as ZodLike | undefined)?._zod?.def;

function pin(schema: unknown, seen: Set<unknown>): void {
  const def = defOf(schema);
  if (!def || seen.has(def)) return;
  seen.add(def);
  if (def.type && COERCIBLE.has(def.type)) {
    // Already pinned (another app instance in this process built its facade over the same schemas).
    if (Object.getOwnPropertyDescriptor(def, 'coerce')?.get) return;
    const value = Boolean(def.coerce);
    Object.defineProperty(def, 'coerce', { get: () => value, set: () => {}, configurable: false, enumerable: true });
    return;
  }
  // Wrappers and containers: optional, nullable, default, array, object, union, pipe, record, tuple...
  const children: unknown[] = [def.innerType, def.element, def.in, def.out, def.valueType, def.left, def.right];
  if (def.shape && typeof def.shape === 'object') children.push(...Object.values(def.shape as Record<string, unknown>));
  if (Array.isArray(def.options)) children.push(...def.options);
  if (Array.isArray(def.items)) children.push(...def.items);
  if (typeof def.getter === 'function') children.push((def.getter as () => unknown)());
  for (const child of children) if (child) pin(child, seen);
}

/** The schema under optional, nullable, default and the like (a pipe: its input side). */
function unwrap(schema: unknown): Def | undefined {
  let def = defOf(schema);
  while (def && (def.innerType || def.type === 'pipe')) def = defOf(def.type === 'pipe' ? def.in : def.innerType);
  return def;
}

/** Number text as a person writes it (`5`, `-1.5`, `1e3`); not `''`, `0x10` or `Infinity`, which stay text. */
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function read(text: string, reading: Reading): unknown {
  if (reading === 'number') return NUMBER_TEXT.test(text) ? Number(text) : text;
  return Object.hasOwn(BOOLEAN_TEXT, text) ? BOOLEAN_TEXT[text] : text;
}

/**
 * Pins the coercion of every procedure input of `router` off, and returns the reader of its REST calls'
 * text: for procedure `name` (as `router` names it), the raw input with its query-string fields (GET and
 * DELETE) and path fields read into numbers and booleans.
 */
export function restInputTypes(router: OpenApiRouter): NonNullable<Context['readRestText']> {
  const readings = new Map<string, Map<string, Reading>>();
  for (const { name, meta, inputs } of listProcedures(router)) {
    for (const input of inputs) pin(input, new Set());
    const openapi = meta?.openapi;
    if (!openapi) continue;
    const inQuery = openapi.method === 'GET' || openapi.method === 'DELETE';
    const inPath = new Set([...openapi.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    const fields = new Map<string, Reading>();
    for (const input of inputs) {
      const shape = unwrap(input)?.shape as Record<string, unknown> | undefined;
      for (const [key, field] of Object.entries(shape ?? {})) {
        const type = unwrap(field)?.type;
        if ((inQuery || inPath.has(key)) && (type === 'number' || type === 'boolean')) fields.set(key, type);
      }
    }
    if (fields.size) readings.set(name, fields);
  }
  return (name, raw) => {
    const fields = readings.get(name);
    if (!fields || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
    const input: Record<string, unknown> = { ...raw };
    for (const [key, reading] of fields) {
      const value = input[key];
      if (typeof value === 'string') input[key] = read(value, reading);
    }
    return input;
  };
}
