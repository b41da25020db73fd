// The resource server's side: a bearer token on a platform request resolves to the acting user and
// app. A token is accepted only while it is unexpired, its grant stands (revoking an app or reusing a
// refresh token deletes the grant's tokens) and its app is active (deactivation stops it at once).
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import type { Actor } from '../core/actor.ts';
import { findApp } from '../core/apps/service.ts';
import { touchGrant } from '../core/connected-apps/service.ts';

export async function actorForToken(provider: Provider, orm: MikroORM, token: string): Promise<Actor | null> {
  if (!token || token.length > 512) return null;
  const at = await provider.AccessToken.find(token);
  if (!at || !at.accountId || !at.clientId || at.isExpired) return null;
  const [app, grant] = await Promise.all([findApp(orm.em.fork(), at.clientId), at.grantId ? provider.Grant.find(at.grantId) : undefined]);
  if (!app || !app.active) return null;
  // Revocation deletes a grant's tokens, but a request already past its checks (a parallel reuse of
  // the code or refresh token) can save its token after that delete: the grant is what must stand.
  if (!grant) return null;
  // Last use for the connected-apps list; never delays or fails the request it rides on.
  if (at.grantId) touchGrant(orm.em.fork(), at.grantId).catch(() => {});
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
