// Shapes the provider's answers into the platform OpenAPI document's, in one provider middleware: errors in the envelope,
// `token_type` bearer with `refresh_expires_in` (and `username` on device tokens), the device code
// response with `verification_uri_qr`, device polling errors as `expired`, `scope` on the
// authorization redirect, RFC 8414 metadata without OpenID Connect's fields, the device flow's polling
// interval (`interval`, `slow_down`), and the envelope's 404 for what the provider has no route for.
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import QRCode from 'qrcode';
import { findUserById } from '../core/accounts/service.ts';
import { isErrorCode } from '../core/errors.ts';
import { SCOPES } from '../core/apps/scopes.ts';
import { recordGrantUse } from '../core/connected-apps/service.ts';
import { artifactKey } from './adapter.ts';
import { DEVICE_POLL_INTERVAL, recordDevicePoll } from './device-polling.ts';
import { DEVICE_CODE_TTL, refreshTokenTtl } from './provider.ts';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** OpenID Connect metadata a plain OAuth 2.0 server should not announce. */
const OIDC_ONLY = [
  'claims_supported', 'claim_types_supported', 'claims_parameter_supported', 'id_token_signing_alg_values_supported',
  'subject_types_supported', 'request_parameter_supported', 'request_uri_parameter_supported', 'require_request_uri_registration',
  'userinfo_endpoint', 'end_session_endpoint', 'jwks_uri', 'authorization_response_iss_parameter_supported',
  'dpop_signing_alg_values_supported', 'response_modes_supported',
];

type Body = Record<string, unknown>;

function shapeError(ctx: KoaContextWithOIDC, body: Body) {
  let code = String(body.error);
  const params = ctx.oidc?.params as Record<string, unknown> | undefined;
  // Device polling: an expired, unknown or used device code is `expired` (docs/decisions.md, OAuth).
  if (params?.grant_type === DEVICE_GRANT && (code === 'expired_token' || code === 'invalid_grant')) code = 'expired';
  const message = typeof body.error_description === 'string' ? body.error_description : code;
  // The envelope carries only the service's codes (the document's enum); the provider's features that
  // raise others are off, so this is a guard: such an error keeps its status and message.
  if (!isErrorCode(code)) code = ctx.status >= 500 ? 'server_error' : 'invalid_request';
  // `slow_down` tells the device its code's new interval.
  const extra = typeof body.interval === 'number' ? { interval: body.interval } : {};
  ctx.body = { error: code, message, request_id: (ctx.req as { id?: string }).id ?? null, ...extra };
}

/**
 * A pending device code polled sooner than its interval: `slow_down` (RFC 8628 §3.5, "a variant of
 * authorization_pending"), with the code's new interval. Only pending answers are turned: an approved
 * code still gets its tokens, an expired one its error.
 */
async function paceDevicePoll(ctx: KoaContextWithOIDC, orm: MikroORM) {
  const deviceCode = (ctx.oidc.params as Body).device_code;
  if (typeof deviceCode !== 'string') return;
  const poll = await recordDevicePoll(orm, deviceCode, DEVICE_CODE_TTL);
  if (!poll.tooSoon) return;
  const slowDown = new errors.SlowDown();
  ctx.body = { error: slowDown.error, error_description: slowDown.error_description, interval: poll.interval };
}

/** A path or method the provider has no route for (TRACE, PUT, a turned-off feature): the envelope's 404. */
function notFound(ctx: KoaContextWithOIDC) {
  ctx.status = 404;
  ctx.body = { error: 'not_found', message: `No route for ${ctx.method} ${ctx.path}`, request_id: (ctx.req as { id?: string }).id ?? null };
}

async function shapeToken(ctx: KoaContextWithOIDC, body: Body, orm: MikroORM) {
  body.token_type = 'bearer';
  const grant = ctx.oidc.entities.Grant as { jti?: string; accountId?: string; clientId?: string } | undefined;
  if (grant?.jti && grant.accountId && grant.clientId) {
    await recordGrantUse(orm.em.fork(), {
      grantId: grant.jti,
      grantKey: artifactKey('Grant', grant.jti),
      userId: grant.accountId,
      clientId: grant.clientId,
      scopes: String(body.scope ?? '').split(' ').filter(Boolean),
    });
  }
  if (typeof body.refresh_token === 'string') {
    // The token's own lifetime (a rotated one's chain began with the one it replaced), capped by its grant's.
    const ttl = refreshTokenTtl(String(ctx.oidc.client?.clientId), ctx.oidc.entities.RotatedRefreshToken?.iiat);
    const grantExp = (ctx.oidc.entities.Grant as { exp?: number } | undefined)?.exp;
    const grantLeft = grantExp ? grantExp - Math.floor(Date.now() / 1000) : ttl;
    body.refresh_expires_in = Math.max(0, Math.min(ttl, grantLeft));
  }
  if ((ctx.oidc.params as Body | undefined)?.grant_type === DEVICE_GRANT) {
    const accountId = (ctx.oidc.entities.Grant as { accountId?: string } | undefined)?.accountId;
    const user = accountId ? await findUserById(orm.em.fork(), accountId) : null;
    body.username = user?.username ?? null;
  }
}

/** Adds the granted scope to a redirect carrying an authorization code, the request id to an error. */
function completeRedirect(ctx: KoaContextWithOIDC) {
  const location = ctx.response.get('Location');
  if (!location || !/^https?:|^[a-z][a-z0-9+.-]*:/i.test(location)) return;
  const url = new URL(location, 'http://invalid');
  const code = ctx.oidc?.entities?.AuthorizationCode as { scope?: string } | undefined;
  if (url.searchParams.has('code') && code?.scope && !url.searchParams.has('scope')) url.searchParams.set('scope', code.scope);
  else if (url.searchParams.has('error')) url.searchParams.set('request_id', (ctx.req as { id?: string }).id ?? '');
  else return;
  ctx.redirect(url.toString());
  ctx.status = 302;
}

export function shapeResponses(provider: Provider, orm: MikroORM): void {
  provider.use(async (koa, next) => {
    await next();
    const ctx = koa as KoaContextWithOIDC;
    // No page of the authorization server may be framed by another site.
    if (ctx.response.is('html')) {
      ctx.set('X-Frame-Options', 'DENY');
      if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    }
    const route = ctx.oidc?.route;
    if (!route && ctx.status === 404 && ctx.body == null) return notFound(ctx);
    const pending = route === 'token' && ctx.status === 400 && (ctx.body as Body | undefined)?.error === 'authorization_pending';
    if (pending && (ctx.oidc.params as Body | undefined)?.grant_type === DEVICE_GRANT) await paceDevicePoll(ctx, orm);
    const body = ctx.body as Body | undefined;
    if (ctx.status >= 300 && ctx.status < 400 && (route === 'resume' || route === 'authorization')) {
      completeRedirect(ctx);
      return;
    }
    if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return;
    if (ctx.status >= 400 && 'error' in body) return shapeError(ctx, body);
    if (route === 'token' && typeof body.access_token === 'string') return shapeToken(ctx, body, orm);
    if (route === 'device_authorization' && typeof body.verification_uri_complete === 'string') {
      body.scope = String((ctx.oidc.params as Body).scope ?? '');
      body.interval = DEVICE_POLL_INTERVAL;
      body.verification_uri_qr = await QRCode.toDataURL(body.verification_uri_complete, { errorCorrectionLevel: 'M', margin: 1 });
      return;
    }
    if (route === 'discovery') {
      for (const key of OIDC_ONLY) delete body[key];
      body.scopes_supported = [...SCOPES];
      body.code_challenge_methods_supported = ['S256'];
    }
  });
}
