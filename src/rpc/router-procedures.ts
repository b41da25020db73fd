// The one place that reads a tRPC router's procedure table. tRPC v11 has no public accessor for the
// procedures of a router with their metadata: `router._def.procedures` (flat, by dotted path) and each
// procedure's `_def` (type, meta, input parsers) are marked internal, yet they are what trpc-to-openapi
// itself reads to serve and document a router. Pinned by test/unit/router-procedures.test.ts.
import type { AnyRouter } from '@trpc/server';
import type { Meta } from './trpc.ts';

export type RouterProcedure = {
  /** The dotted path in the router, e.g. `sync.history`. */
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  meta: Meta | undefined;
  /** The input parsers, in the order `.input()` added them (their fields merge into one input). */
  inputs: readonly unknown[];
};

type ProcedureDef = { type: RouterProcedure['type']; meta?: Meta; inputs?: unknown[] };

/** Every procedure of `router` (sub-routers' included), in definition order. */
export function listProcedures(router: AnyRouter): RouterProcedure[] {
  return Object.entries(router._def.procedures as Record<string, { _def: ProcedureDef }>).map(([name, proc]) => ({
    name,
    type: proc._def.type,
    meta: proc._def.meta,
    inputs: proc._def.inputs ?? [],
  }));
}
