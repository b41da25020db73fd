// The authorization server's answers told in Trakt's OAuth dialect: the token answer with `created_at`,
// its `{error, error_description}` errors, and the device poll's statuses (400 pending with no body,
// 404 invalid code, 409 already used, 410 expired, 418 denied, 429 slow down).
import { ApiError } from '../core/errors.ts';
import type { ProviderAnswer } from './oauth-provider-call.ts';
import type { TraktAnswer } from './route.ts';

/** Trakt's token answer. `scope` is the service's granted scopes (Trakt's is always `public`). */
export function traktTokens(a: ProviderAnswer) {
  const b = a.body;
  return {
    access_token: String(b.access_token),
    token_type: 'bearer',
    expires_in: Number(b.expires_in),
    refresh_token: String(b.refresh_token),
    scope: String(b.scope ?? ''),
    created_at: a.issuedAt ?? Math.floor(Date.now() / 1000),
  };
}

const error = (status: number, code: string, description: string): TraktAnswer => ({ status, body: { error: code, error_description: description } });

/** A refusal of the provider's, with its own code and status (400, or 401 for client authentication). */
export function providerRefusal(a: ProviderAnswer): TraktAnswer {
  if (a.status >= 500) throw new ApiError('server_error', 'The authorization server failed');
  const code = a.error?.error ?? String(a.body.error ?? 'invalid_request');
  const description = a.error?.description ?? String(a.body.message ?? code);
  return error(a.status, code, description);
}

/**
 * A device poll's answer. The provider's errors, as it raised them, say which case it is: its
 * `invalid_grant` for a consumed code says so in its detail (a code of another app, or none, is an
 * invalid code); `slow_down` is the service's pacing of a pending code (src/oauth/device-polling.ts),
 * told with the code's new interval as Retry-After.
 */
export function devicePollAnswer(a: ProviderAnswer): TraktAnswer {
  if (a.status === 200) return { body: traktTokens(a) };
  if (a.body.error === 'slow_down') {
    const interval = Number(a.body.interval);
    return { ...error(429, 'slow_down', `Polling too quickly: wait ${interval} s between polls`), headers: { 'Retry-After': String(interval) } };
  }
  switch (a.error?.error) {
    // Trakt's contract: 400 and no body.
    case 'authorization_pending':
      return { status: 400 };
    case 'expired_token':
      return error(410, 'expired_token', 'The device code has expired: start again');
    case 'access_denied':
      return error(418, 'access_denied', 'The user denied this device code');
    case 'invalid_grant':
      return /already consumed/.test(a.error.detail ?? '')
        ? error(409, 'invalid_grant', 'The device code was already used')
        : error(404, 'invalid_grant', 'The device code is invalid');
    default:
      return providerRefusal(a);
  }
}
