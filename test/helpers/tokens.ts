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
 * A token of a new grant that the user's connected apps list, as the token endpoint leaves it (its
 * app_grant row: what webhook delivery reads a user's scopes from).
 */
export async function issueConnectedToken(app: TestApp, opts: TokenOptions): Promise<string> {
  const granted = await grantFor(app, opts);
  const token = await new app.oauth.provider.AccessToken(granted).save();
  await recordGrantUse(app.db.orm.em.fork(), {
    grantId: granted.grantId,
    grantKey: artifactKey('Grant', granted.grantId),
    userId: opts.userId,
    clientId: opts.clientId,
    scopes: opts.scope.split(' '),
  });
  return token;
}
