// Each operation of an OpenAPI document names the rate limits that count it (`x-rate-limits`, and a
// sentence in its description): the general buckets of its class, then its own: those its procedure
// declares in `meta.limits`, or those an Express-only route counts (the limits table's `routes`).
import type { generateOpenApiDocument } from 'trpc-to-openapi';
import { describeLimit } from '../core/limits/docs.ts';
import { LIMITS, limitById, type Limit } from '../core/limits/table.ts';
import { PROCEDURES, type Surface } from '../rpc/procedures.ts';
import { OAUTH2 } from './openapi-security.ts';

type Doc = ReturnType<typeof generateOpenApiDocument>;
type Json = Record<string, unknown>;

function generalLimits(surface: Surface, authenticated: boolean, read: boolean): Limit[] {
  if (surface !== 'platform') return [];
  return LIMITS.filter((l) => {
    if (l.checkedBy !== 'pipeline') return false;
    if (l.applies === 'unauthenticated') return !authenticated;
    return authenticated && (l.applies === 'all' || (l.applies === 'reads') === read);
  });
}

function ownLimits(surface: Surface, method: string, template: string): Limit[] {
  const procedure = PROCEDURES.find((p) => p.surface === surface && p.rest?.method === method && p.rest.path === template);
  if (procedure) return (procedure.meta.limits ?? []).map(limitById);
  return LIMITS.filter((l) => l.surface === surface && l.routes?.includes(`${method} ${template}`));
}

export function annotateLimits(doc: Doc, surface: Surface): void {
  for (const [template, item] of Object.entries(doc.paths ?? {}) as Array<[string, Json]>) {
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      // Requests with an access token count the general buckets of tokens; others (the calendar feed's
      // own token included) the unauthenticated one.
      const authenticated = Array.isArray(op.security) && op.security.some((r) => OAUTH2 in (r as Json));
      const limits = [...generalLimits(surface, authenticated, method === 'get'), ...ownLimits(surface, method.toUpperCase(), template)];
      op['x-rate-limits'] = limits.map((l) => ({ bucket: l.id, limit: l.points, window_seconds: l.seconds, per: l.key }));
      const words = limits.map((l) => describeLimit(l)).join('; ');
      if (words) op.description = `${op.description ? `${String(op.description)}\n\n` : ''}Rate limits: ${words}.`;
    }
  }
}
