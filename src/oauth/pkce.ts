// When the authorization server lets an authorization request without PKCE through: the provider's
// `pkce.required(ctx, client)` hook (provider.ts), which the provider calls for a code request that
// carries no code_challenge.
//
// The decision: PKCE stays required for every request, except a confidential app's authorization
// request that came through the Trakt facade's GET /trakt/oauth/authorize (its redirect names
// VIA_TRAKT). Why:
// - Trakt's authorization-code clients send no PKCE (the `trakt.tv` npm package's get_url and
//   exchange_code: response_type, client_id, redirect_uri and state, then the code with client_id and
//   client_secret). Without this they could not sign in at all.
// - Public apps never skip it (the hook answers true for `token_endpoint_auth_method: none` whatever the
//   request says): a public client has nothing else binding a code to it, so a code intercepted on its
//   way to the redirect URI would be as good as the tokens.
// - A confidential app's code can only be redeemed with the app's secret (the provider authenticates
//   `client_secret_post` at the token endpoint), so an intercepted code is of no use to whoever took
//   it; the exact redirect URI match (authorize-check.ts) and `state` remain. What PKCE adds for such
//   an app (against a stolen code injected into the app's own session, RFC 9700 §4.5) the app gives up
//   by using Trakt's flow, which is Trakt's own behaviour and oidc-provider's default for confidential
//   clients. A code issued with a challenge still needs its verifier, and one issued without a
//   challenge is refused to a client that sends a verifier (the provider's checkPKCE), so an app that
//   uses PKCE cannot be downgraded into a code without it.
// - The marker is not a secret and does not need to be: any confidential app may use the Trakt path.
//   It keeps the platform's documented contract (PKCE on every authorization request) for the
//   requests that do not come from the facade, so a platform client that forgot PKCE is still told.
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The query parameter the facade's authorize redirect adds, and its value. */
export const VIA_TRAKT = { name: 'via', value: 'trakt' } as const;

export function pkceRequired(ctx: KoaContextWithOIDC, client: { clientAuthMethod?: string | undefined }): boolean {
  const confidential = client.clientAuthMethod !== undefined && client.clientAuthMethod !== 'none';
  const viaTrakt = ctx.method === 'GET' && ctx.query[VIA_TRAKT.name] === VIA_TRAKT.value;
  return !(confidential && viaTrakt);
}
