// The resource server's side: a bearer token on a platform request resolves to the acting user and
// app. A token is accepted only while it is unexpired, its grant stands (revoking an app or reusing a
// refresh token deletes the grant's tokens) and its app is active (deactivation stops it at once).
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import type { Actor } from '../core/actor.ts';
import { findApp } from '../core/apps/service.ts';
import { touchGrant } from '../core/connected-apps/service.ts';

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

export async function actorForToken(provider: Provider, orm: MikroORM, token: string): Promise<Actor | null> {
  if (!token || token.length > 512) return null;
  const at = await provider.AccessToken.find(token);
  if (!at || !at.accountId || !at.clientId || at.isExpired) return null;
  const [app, grant] = await Promise.all([findApp(orm.em.fork(), at.clientId), at.grantId ? provider.Grant.find(at.grantId) : undefined]);
  if (!app || !app.active) return null;
  // Revocation deletes a grant's tokens, but a request already past its checks (a parallel reuse of
  // the code or refresh token) can save its token after that delete: the grant is what must stand.
  if (!grant || !at.grantId) return null;
  noteUse(orm, at.grantId);
  return {
    userId: at.accountId,
    clientId: app.client_id,
    scopes: new Set(String(at.scope ?? '').split(' ').filter(Boolean)),
    official: app.official,
  };
}

/** The token of an `Authorization: Bearer ...` header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}
