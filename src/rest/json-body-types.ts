// JSON bodies keep their JSON types. trpc-to-openapi coerces every number, boolean, bigint and date
// field of a procedure's input from strings on each request (meant for query strings), and does it to
// bodies too: {"isPublic": "false"} would read as true and {"movieDbId": "129"} as 129. A JSON body
// already carries types, so a string where a number belongs is a 400. The library has no option to
// leave bodies alone (its handler takes the router, context, response meta, error hook and body size
// only) and sets the flag on the schemas themselves (`_zod.def.coerce`), so at start-up each body
// field's flag is pinned to what the schema author wrote (an explicit z.coerce stays). Path
// parameters, merged into the same input, are strings and keep the library's coercion. Pinned by
// test/unit/json-body-types.test.ts.
import type { OpenApiRouter } from 'trpc-to-openapi';
import { listProcedures } from '../rpc/router-procedures.ts';

type ZodLike = { _zod?: { def?: Record<string, unknown> & { type?: string } } };

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);

function pin(schema: unknown, seen: Set<unknown>): void {
  const def = (schema as ZodLike | undefined)?._zod?.def;
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

/** Pins coercion off for the body fields of every POST/PUT/PATCH procedure of `router`. */
export function keepJsonBodyTypes(router: OpenApiRouter): void {
  for (const { meta, inputs } of listProcedures(router)) {
    const openapi = meta?.openapi;
    if (!openapi || openapi.method === 'GET' || openapi.method === 'DELETE') continue;
    const pathParams = new Set([...openapi.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    for (const input of inputs) {
      const shape = (input as ZodLike)._zod?.def?.shape as Record<string, unknown> | undefined;
      if (!shape) {
        pin(input, new Set());
        continue;
      }
      for (const [key, field] of Object.entries(shape)) if (!pathParams.has(key)) pin(field, new Set());
    }
  }
}
