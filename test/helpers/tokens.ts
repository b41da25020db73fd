// Access and refresh tokens minted by the service's own authorization server, for tests that need many
// users' tokens quickly (the flows themselves are tested with openid-client and Chromium elsewhere).
import { recordGrantUse } from '../../src/core/connected-apps/service.ts';
import { artifactKey } from '../../src/oauth/adapter.ts';
import type { TestApp } from './app.ts';

type TokenOptions = { userId: string; clientId: string; scope: string };

/** A new grant of `scope` and what a token of it is made from, as the code flow would have left them. */
async function grantFor(app: TestApp, opts: TokenOptions) {
  const { provider } = app.oauth;
  const grant = new provider.Grant({ accountId: opts.userId, clientId: opts.clientId });
  grant.addOIDCScope(opts.scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(opts.clientId);
  if (!client) throw new Error(`no active app ${opts.clientId}`);
  return { accountId: opts.userId, client, grantId, scope: opts.scope, gty: 'authorization_code' };
}

export async function issueToken(app: TestApp, opts: TokenOptions): Promise<string> {
  return new app.oauth.provider.AccessToken(await grantFor(app, opts)).save();
}

/** A refresh token of a new grant (for tests of refresh requests). */
export async function issueRefreshToken(app: TestApp, opts: TokenOptions): Promise<string> {
  return new app.oauth.provider.RefreshToken(await grantFor(app, opts)).save();
}

/**
 * An access token whose grant is also a connected app of the user, as the token endpoint records it (what
 * reads "the users whose grant holds a scope" go by: the app's user count, its webhooks' deliveries).
 */
export async function issueConnectedToken(app: TestApp, opts: TokenOptions): Promise<string> {
  const g = await grantFor(app, opts);
  await recordGrantUse(app.db.orm.em.fork(), { grantId: g.grantId, grantKey: artifactKey('Grant', g.grantId), userId: opts.userId, clientId: opts.clientId, scopes: opts.scope.split(' ') });
  return new app.oauth.provider.AccessToken(g).save();
}
