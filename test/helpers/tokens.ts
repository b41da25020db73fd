// Access tokens minted by the service's own authorization server, for tests that need many users'
// tokens quickly (the flows themselves are tested with openid-client and Chromium elsewhere).
import type { TestApp } from './app.ts';

export async function issueToken(app: TestApp, opts: { userId: string; clientId: string; scope: string }): Promise<string> {
  const { provider } = app.oauth;
  const grant = new provider.Grant({ accountId: opts.userId, clientId: opts.clientId });
  grant.addOIDCScope(opts.scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(opts.clientId);
  if (!client) throw new Error(`no active app ${opts.clientId}`);
  return new provider.AccessToken({ accountId: opts.userId, client, grantId, scope: opts.scope, gty: 'authorization_code' }).save();
}

/** A refresh token of a new grant, as the code flow would have left it (for tests of refresh requests). */
export async function issueRefreshToken(app: TestApp, opts: { userId: string; clientId: string; scope: string }): Promise<string> {
  const { provider } = app.oauth;
  const grant = new provider.Grant({ accountId: opts.userId, clientId: opts.clientId });
  grant.addOIDCScope(opts.scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(opts.clientId);
  if (!client) throw new Error(`no active app ${opts.clientId}`);
  return new provider.RefreshToken({ accountId: opts.userId, client, grantId, scope: opts.scope, gty: 'authorization_code' }).save();
}
