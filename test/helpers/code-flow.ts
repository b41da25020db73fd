// The authorization code flow as a third-party app runs it with openid-client, for tests that need a
// code or tokens: a new app per call (so grants and revocations of one test never touch another's), its
// authorization URL with PKCE S256, the user's consent in a signed-in Chromium context, the exchange.
import * as client from 'openid-client';
import type { BrowserContext } from 'playwright-core';
import type { TestApp } from './app.ts';
import { authorizeInBrowser, makeApp } from './oauth.ts';

export const REDIRECT = 'http://127.0.0.1:8799/callback';

export type CodeClient = { clientId: string; secret: string | null; scopes: string[]; config: client.Configuration };

export async function discover(app: TestApp, clientId: string, secret?: string | null): Promise<client.Configuration> {
  return client.discovery(new URL(app.url), clientId, undefined, secret ? client.ClientSecretPost(secret) : client.None(), {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

export async function newCodeClient(app: TestApp, opts: { name?: string; confidential?: boolean; scopes?: string[] } = {}): Promise<CodeClient> {
  const created = await makeApp(app, { name: opts.name, confidential: opts.confidential ?? false, scopes: opts.scopes, redirectUri: REDIRECT });
  const config = await discover(app, created.client_id, created.client_secret);
  return { clientId: created.client_id, secret: created.client_secret, scopes: created.allowed_scopes, config };
}

/** An authorization URL with a fresh PKCE verifier and state; `scope` undefined leaves it out. */
export async function authorizationUrl(c: CodeClient, scope?: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(c.config, {
    redirect_uri: REDIRECT,
    ...(scope === undefined ? {} : { scope }),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  return { url, verifier, state };
}

/** A code the user approved in the browser, with what is needed to redeem it. */
export async function approvedCode(context: BrowserContext, c: CodeClient, opts: { scope?: string; username: string }) {
  const { url, verifier, state } = await authorizationUrl(c, opts.scope);
  const callback = await authorizeInBrowser(context, url, { redirectUri: REDIRECT, username: opts.username });
  return { callback, verifier, state, code: callback.searchParams.get('code')! };
}

/** Tokens for a new app of the given scopes, through the whole code flow. */
export async function codeFlowTokens(
  app: TestApp,
  context: BrowserContext,
  opts: { scope?: string; scopes?: string[]; username: string; confidential?: boolean; name?: string },
) {
  const c = await newCodeClient(app, { name: opts.name, scopes: opts.scopes, confidential: opts.confidential });
  const { callback, verifier, state } = await approvedCode(context, c, opts);
  const tokens = await client.authorizationCodeGrant(c.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  return { client: c, tokens: tokens as client.TokenEndpointResponse & { refresh_token: string; scope: string } };
}
