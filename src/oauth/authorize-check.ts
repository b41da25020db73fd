// Checks an authorization request before the provider sees it: an unknown or inactive app gets an
// error page (its redirect URI cannot be trusted), so does a redirect URI that is not one of the app's
// registered strings exactly (port included: the provider alone would let a native app's loopback port
// vary, RFC 8252 §7.3, which the service does not offer); a scope outside the app's allowed scopes goes
// back to the app as `invalid_scope` with `iss` (RFC 9207) like the provider's own error redirects, and
// an omitted scope becomes the app's allowed scopes.
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../core/errors.ts';
import { errorPage } from './pages/error.ts';
import { activeApp, checkedScope } from './shims.ts';

export function authorizeCheck(orm: MikroORM, issuer: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const fromBody = req.method === 'POST';
    const params = new URLSearchParams(fromBody ? (req.body as Record<string, string>) ?? {} : (req.url.split('?')[1] ?? ''));
    try {
      const app = await activeApp(orm, params.get('client_id') ?? undefined);
      const redirectUri = params.get('redirect_uri');
      if (redirectUri !== null && !app.redirect_uris.includes(redirectUri)) {
        throw new ApiError('invalid_request', "redirect_uri did not match any of the client's registered redirect_uris");
      }
      try {
        params.set('scope', checkedScope(app, params.get('scope') ?? undefined));
      } catch (err) {
        if (!(err instanceof ApiError) || !redirectUri) throw err;
        const back = new URL(redirectUri);
        back.searchParams.set('error', err.code);
        back.searchParams.set('error_description', err.message);
        const state = params.get('state');
        if (state) back.searchParams.set('state', state);
        back.searchParams.set('iss', issuer);
        back.searchParams.set('request_id', req.id ?? '');
        res.redirect(302, back.toString());
        return;
      }
      if (fromBody) req.body = Object.fromEntries(params);
      else req.url = `${req.path}?${params.toString()}`;
      next();
    } catch (err) {
      if (!(err instanceof ApiError)) return next(err);
      errorPage(res, err.status, err.code, err.message, req.id);
    }
  };
}
