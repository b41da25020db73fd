// What an app may subscribe to: the change feed's resources (Continue Watching's `playback` among them),
// each needing its read scope in the user's grant, and `authorization.revoked`, which needs none (it is
// the app's own grant ending).
import { CHANGE_RESOURCES, isChangeResource, type ChangeResource } from '../changes/resources.ts';
import { invalidRequest } from '../errors.ts';

export const REVOKED_KIND = 'authorization.revoked';

/**
 * The change_log resource a revocation is recorded under (resource_id: the app's client id). The change
 * feed, the snapshot, the trophy job and the Trakt facade each read resources they name, never this one.
 */
export const REVOKED_RESOURCE = 'app_authorization';

export const WEBHOOK_KINDS = [...(Object.keys(CHANGE_RESOURCES) as ChangeResource[]), REVOKED_KIND] as const;
export type WebhookKind = ChangeResource | typeof REVOKED_KIND;

/** The scope a user's grant needs for the app to be sent a kind of change; null for the revocation. */
function scopeOfKind(kind: WebhookKind): string | null {
  return kind === REVOKED_KIND ? null : CHANGE_RESOURCES[kind];
}

/** The change resources among the kinds. */
export function resourcesOf(kinds: readonly string[]): ChangeResource[] {
  return kinds.filter(isChangeResource);
}

/**
 * The kinds, each once and in the table's order; a kind whose scope the app may never be granted is
 * refused (nothing of it could ever be sent).
 */
export function checkKinds(kinds: readonly string[], allowedScopes: readonly string[]): WebhookKind[] {
  const wanted = new Set(kinds);
  const unknown = [...wanted].filter((k) => !(WEBHOOK_KINDS as readonly string[]).includes(k));
  if (unknown.length) throw invalidRequest(`kinds: unknown kind ${JSON.stringify(unknown[0])}; known kinds are ${WEBHOOK_KINDS.join(', ')}`);
  const allowed = new Set(allowedScopes);
  const out = WEBHOOK_KINDS.filter((k) => wanted.has(k));
  for (const k of out) {
    const scope = scopeOfKind(k);
    if (scope && !allowed.has(scope)) throw invalidRequest(`kinds: ${k} needs the ${scope} scope, which this app may not be granted`);
  }
  return out;
}
