// The provider's `loadExistingGrant`: which grant an authorization request of a signed-in browser already
// has. For every app it is the provider's own answer (the grant the consent just made, or the one this
// browser's session holds for the app). For the first-party web app only (core/apps/first-party.ts) it is
// also a grant of every scope asked for, made or widened here: the service's own official app needs no
// consent page, so a browser signed in at /account gets its code with no page at all, and a silent
// `prompt=none` request gets one too. The grant is listed among the user's connected apps at once, so
// revoking the app (at /account/connected-apps, or the web app's sign-out) reaches it even before it has
// a token.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';
import { FIRST_PARTY_CLIENT_ID } from '../core/apps/first-party.ts';
import { recordGrantUse } from '../core/connected-apps/service.ts';
import { artifactKey } from './adapter.ts';

/** The provider's steps of a code flow, where the first-party grant may be made (never a device confirmation). */
const CODE_FLOW_ROUTES = new Set(['authorization', 'resume']);

export function loadExistingGrant(orm: MikroORM) {
  return async (ctx: KoaContextWithOIDC): Promise<Grant | undefined> => {
    const { oidc } = ctx;
    const clientId = oidc.client!.clientId;
    const grantId = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(clientId);
    const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
    const accountId = oidc.account?.accountId;
    if (clientId !== FIRST_PARTY_CLIENT_ID || !accountId || !CODE_FLOW_ROUTES.has(String(oidc.route))) return existing;
    // A grant revoked meanwhile is gone (find answers undefined): a new one takes its place.
    const grant = existing?.accountId === accountId ? existing : new oidc.provider.Grant({ accountId, clientId });
    const held = new Set(grant.getOIDCScope().split(' '));
    const missing = [...oidc.requestParamOIDCScopes].filter((scope) => !held.has(scope));
    if (grant === existing && !missing.length) return grant;
    if (missing.length) grant.addOIDCScope(missing);
    const jti = await grant.save();
    await recordGrantUse(orm.em.fork(), { grantId: jti, grantKey: artifactKey('Grant', jti), userId: accountId, clientId, scopes: grant.getOIDCScope().split(' ').filter(Boolean) });
    return grant;
  };
}
