// Every procedure of the service with its metadata, found the way each transport names it: by REST
// method and path on the two API bases, by dotted name on /trpc. The HTTP pipeline uses it for what it
// must know before the procedure runs (the body cap), the documents for what each call costs.
import { appRouter } from './app-router.ts';
import { listProcedures } from './router-procedures.ts';
import type { Meta } from './trpc.ts';

export type Surface = 'public' | 'platform';

export type ProcedureEntry = {
  /** The name without its surface, e.g. `sync.history`: the key both transports count it under. */
  name: string;
  /** The name on /trpc, e.g. `platform.sync.history`. */
  trpcName: string;
  surface: Surface;
  type: 'query' | 'mutation' | 'subscription';
  meta: Meta;
  /** Method and path template under the surface's REST base, when the procedure has one. */
  rest?: { method: string; path: string; pattern: RegExp };
};

function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

function indexProcedures(): ProcedureEntry[] {
  const entries: ProcedureEntry[] = [];
  for (const { name: trpcName, type, meta: declared } of listProcedures(appRouter)) {
    const [surface, ...rest] = trpcName.split('.');
    const meta = declared ?? {};
    const o = meta.openapi;
    entries.push({
      name: rest.join('.'),
      trpcName,
      surface: surface as Surface,
      type,
      meta,
      ...(o ? { rest: { method: o.method, path: o.path, pattern: pathPattern(o.path) } } : {}),
    });
  }
  return entries;
}

export const PROCEDURES: readonly ProcedureEntry[] = indexProcedures();
const BY_TRPC_NAME = new Map(PROCEDURES.map((p) => [p.trpcName, p]));

/** The procedure a REST request reaches: the first whose method and path match, as the facade tries them. */
export function restProcedure(surface: Surface, method: string, relPath: string): ProcedureEntry | undefined {
  return PROCEDURES.find((p) => p.surface === surface && p.rest?.method === method && p.rest.pattern.test(relPath));
}

/** The procedures one /trpc request calls (a batch names several, comma-separated); undefined: unknown. */
export function trpcProcedures(pathAfterBase: string): Array<ProcedureEntry | undefined> {
  const names = decodeURIComponentSafe(pathAfterBase.replace(/^\//, ''));
  if (names === '') return [];
  return names.split(',').map((n) => BY_TRPC_NAME.get(n));
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
