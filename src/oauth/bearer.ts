// The resource server's side: a bearer token on a platform request resolves to the acting user and
// app. A token is accepted only while it is unexpired, its grant stands (revoking an app or reusing a
// refresh token deletes the grant's tokens) and its app is active (deactivation stops it at once).
// Checked against the database on every request (no cache: a revocation, whoever makes it, the CLI and
// other instances included, counts from the next request on), in one statement: the token's stored
// row (the adapter's table, keyed by digest), its app and whether its grant stands.
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import type { Actor } from '../core/actor.ts';
import { touchGrant } from '../core/connected-apps/service.ts';
import { tokenRow } from '../core/tokens/repository.ts';
import { artifactKey } from './adapter.ts';

type TokenRow = NonNullable<Awaited<ReturnType<typeof tokenRow>>>;

// The database moves a grant's last use at most once a minute; this process also asks at most that often,
// so a busy token costs no write per request. Bounded: the oldest entries go first.
const TOUCH_EVERY_MS = 60_000;
const lastTouch = new Map<string, number>();

function noteUse(orm: MikroORM, grantId: string) {
  const now = Date.now();
  if (now - (lastTouch.get(grantId) ?? 0) < TOUCH_EVERY_MS) return;
  lastTouch.delete(grantId);
  lastTouch.set(grantId, now);
  if (lastTouch.size > 10_000) lastTouch.delete(lastTouch.keys().next().value!);
  // Last use for the connected-apps list; never delays or fails the request it rides on.
  touchGrant(orm.em.fork(), grantId).catch(() => {});
}

/** `_provider`: tokens are the provider's, read here straight from its storage (see above). */
export async function actorForToken(_provider: Provider, orm: MikroORM, token: string): Promise<Actor | null> {
  if (!token || token.length > 512) return null;
  const row = await tokenRow(orm.em.fork(), tokenKey(token));
  if (!row) return null;
  const actor = actorOfTokenRow(row);
  if (actor) noteUse(orm, row.payload.grantId!);
  return actor;
}

/** The stored key of an access token (what tokenRow and the event streams' re-check look up). */
export const tokenKey = (token: string) => artifactKey('AccessToken', token);

/**
 * The acting user of a token's row (tokenRow's), or null when the token does not stand. The one rule:
 * the bearer check and the event streams' re-check (rest/stream-watch.ts) both apply it.
 */
export function actorOfTokenRow(row: TokenRow): Actor | null {
  const at = row.payload;
  // What the provider's AccessToken.find checks of an opaque token's payload: its kind, format and expiry.
  if (at.kind !== 'AccessToken' || (at.format !== undefined && at.format !== 'opaque')) return null;
  if (typeof at.exp !== 'number' || at.exp <= Math.floor(Date.now() / 1000)) return null;
  if (!at.accountId || !at.clientId || !row.active || row.client_id !== at.clientId) return null;
  // Revocation deletes a grant's tokens, but a request already past its checks (a parallel reuse of
  // the code or refresh token) can save its token after that delete: the grant is what must stand.
  if (!at.grantId || !row.grant_stands) return null;
  return {
    userId: at.accountId,
    clientId: row.client_id,
    scopes: new Set(String(at.scope ?? '').split(' ').filter(Boolean)),
    official: Boolean(row.official),
  };
}

/** The token of an `Authorization: Bearer ...` header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}
