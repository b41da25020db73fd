// /account: a signed-in user's hub page, their connected apps, and revoking one (every token of its
// grants ends at once). The developer apps pages are developer-apps.ts.
// Sign-in goes through the password-guessing throttle and signs the browser in with the authorization
// server too (one session, account-session.ts); sign-out destroys that session on the server, so the old
// cookie opens neither these pages nor an approval again. The first-party web app signs out at the same
// path with its bearer token instead of a form (app-sign-out.ts).
// Revoking and signing out count in the `account-forms` bucket first (form-limits.ts).
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../../rest/routing.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import { findUserById } from '../../core/accounts/service.ts';
import { signInWithPassword, throttledText } from '../../core/accounts/sign-in.ts';
import { listConnectedApps, revokeConnectedApp } from '../../core/connected-apps/service.ts';
import { ApiError } from '../../core/errors.ts';
import { FailureLimits, rateLimitHeaders, type RateLimits } from '../../core/limits/limiter.ts';
import type { Logger } from '../../core/log.ts';
import { refusedByFormLimit } from './form-limits.ts';
import { appSignOut } from './app-sign-out.ts';
import { browserSession, signOutBrowser, validSessionCsrf } from '../../oauth/browser-session.ts';
import { loginNonce, startSession, validLoginNonce } from './account-session.ts';
import { accountSignInPage, connectedAppsPage } from '../pages/account.ts';
import { accountHubPage } from '../pages/account-hub.ts';
import { PAGE_HEADERS, page } from '../../oauth/pages/layout.ts';

/** `signUp`: where the sign-in page links to make an account; unset when sign-ups are closed. */
/** `origin`: BASE_URL's origin, where the web app's sign-out must come from (app-sign-out.ts). */
type Deps = {
  orm: MikroORM; provider: Provider; limits: RateLimits; log: Logger; key: string; secure: boolean; signUp?: string | undefined; appRegistration: boolean;
  origin: string;
};

const send = (res: Response, status: number, html: string) => void res.status(status).set(PAGE_HEADERS).send(html);

// Where a sign-in returns: an account page path the form named, never anywhere else (no open redirect).
const ACCOUNT_PATH = /^\/account(\/[A-Za-z0-9_-]+)*$/;
const afterSignIn = (next: unknown) => (typeof next === 'string' && ACCOUNT_PATH.test(next) ? next : '/account/connected-apps');

export function accountRoutes(deps: Deps): Router {
  const r = strictRouter();
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);
  const em = () => deps.orm.em.fork();
  const failures = new FailureLimits(deps.limits);

  const showApps = async (req: Request, res: Response, notice?: string) => {
    const session = await browserSession(deps, req, res);
    const user = session ? await findUserById(em(), session.userId) : null;
    if (!session || !user) return send(res, 200, accountSignInPage({ nonce: loginNonce(res, deps.secure), signUp: deps.signUp }));
    send(res, 200, connectedAppsPage({ username: user.username, apps: await listConnectedApps(em(), user.id), csrf: session.csrf, notice }));
  };

  r.get('/account', wrap(async (req, res) => {
    const session = await browserSession(deps, req, res);
    const user = session ? await findUserById(em(), session.userId) : null;
    if (!session || !user) return send(res, 200, accountSignInPage({ nonce: loginNonce(res, deps.secure), next: '/account', signUp: deps.signUp }));
    send(res, 200, accountHubPage({ username: user.username, csrf: session.csrf, appRegistration: deps.appRegistration }));
  }));
  r.get('/account/connected-apps', wrap((req, res) => showApps(req, res)));

  r.post('/account/sign-in', wrap(async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!validLoginNonce(req, body.nonce)) return send(res, 403, page('Something went wrong', '<p>The form has expired. Go back and try again.</p>'));
    const username = typeof body.username === 'string' ? body.username : '';
    const next = afterSignIn(body.next);
    const signIn = await signInWithPassword(em(), failures, { username: body.username, password: body.password, ip: req.ip ?? '' });
    if (signIn.outcome === 'throttled') {
      for (const [name, value] of Object.entries(rateLimitHeaders(signIn.decision))) res.setHeader(name, value);
      const error = throttledText(signIn.decision);
      return send(res, 429, accountSignInPage({ nonce: loginNonce(res, deps.secure), error, username, next, signUp: deps.signUp }));
    }
    if (signIn.outcome === 'wrong') return send(res, 400, accountSignInPage({ nonce: loginNonce(res, deps.secure), error: 'Wrong username or password.', username, next, signUp: deps.signUp }));
    await startSession(deps, req, res, signIn.user.id);
    res.redirect(303, next);
  }));

  r.post('/account/connected-apps/:clientId/revoke', wrap(async (req, res) => {
    const session = await browserSession(deps, req, res);
    if (await refusedByFormLimit(deps, req, res, 'account-forms', session?.userId)) return;
    if (!session || !validSessionCsrf(session, (req.body as Record<string, unknown> | undefined)?.csrf)) {
      return send(res, 403, page('Something went wrong', '<p>Your session has expired. Sign in again.</p>'));
    }
    try {
      await revokeConnectedApp(em(), session.userId, String(req.params.clientId));
      res.redirect(303, '/account/connected-apps');
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'not_found') throw err;
      await showApps(req, res, 'That app was not connected.');
    }
  }));

  // The web app's sign-out (a bearer token, no form) first; the account pages' form after it.
  r.post('/account/sign-out', appSignOut(deps), wrap(async (req, res) => {
    const session = await browserSession(deps, req, res);
    if (await refusedByFormLimit(deps, req, res, 'account-forms', session?.userId)) return;
    if (session && validSessionCsrf(session, (req.body as Record<string, unknown> | undefined)?.csrf)) {
      await signOutBrowser(deps, req, res);
    }
    res.redirect(303, '/account');
  }));
  return r;
}
