// /account/sign-up: anyone makes an account with a username and a password typed twice, under the
// rules of `user:create`, and is signed in at once (an account session, as /account/sign-in makes).
// The form carries the sign-in forms' login nonce (login CSRF); sign-ups are throttled per address
// (core/accounts/sign-up.ts). Every refusal shows the form again with what is wrong: 400 for a form
// mistake, 409 for a username taken in any letter case (a race between two sign-ups included), 429
// when throttled, 403 for an expired form. From an authorization's sign-in page the new user goes back
// to that authorization (oauth/sign-up-handoff.ts). With SIGNUPS=closed the page is a 404 saying so,
// and no sign-in page links here.
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../../rest/routing.ts';
import type Provider from 'oidc-provider';
import type { MikroORM } from '@mikro-orm/postgresql';
import { retryText } from '../../core/accounts/sign-in.ts';
import { signUp } from '../../core/accounts/sign-up.ts';
import { FailureLimits, rateLimitHeaders, type RateLimits } from '../../core/limits/limiter.ts';
import { loginNonce, startSession, validLoginNonce } from './account-session.ts';
import { PAGE_HEADERS } from '../../oauth/pages/layout.ts';
import { signUpPage, signUpsClosedPage, type SignUpPageOptions } from '../pages/sign-up.ts';
import { handOffSignUp, safeReturnPath, SIGN_UP_PATH } from '../../oauth/sign-up-handoff.ts';

type Deps = { orm: MikroORM; provider: Provider; limits: RateLimits; key: string; secure: boolean; open: boolean };

const send = (res: Response, status: number, html: string) => void res.status(status).set(PAGE_HEADERS).send(html);

export function signUpRoutes(deps: Deps): Router {
  const r = strictRouter();
  if (!deps.open) {
    r.all(SIGN_UP_PATH, (_req, res) => send(res, 404, signUpsClosedPage()));
    return r;
  }
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);
  const failures = new FailureLimits(deps.limits);
  const form = (res: Response, status: number, opts: Omit<SignUpPageOptions, 'nonce'>) => send(res, status, signUpPage({ nonce: loginNonce(res, deps.secure), ...opts }));

  r.get(SIGN_UP_PATH, (req, res) => form(res, 200, { returnTo: safeReturnPath(req.query.return) }));

  r.post(SIGN_UP_PATH, wrap(async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnPath(body.return);
    // Shown again in the form; a name longer than any allowed is cut to the field's length.
    const username = typeof body.username === 'string' ? body.username.slice(0, 32) : '';
    if (!validLoginNonce(req, body.nonce)) return form(res, 403, { returnTo, username, error: 'The form has expired. Try again.' });
    const result = await signUp(deps.orm.em.fork(), failures, { username: body.username, password: body.password, confirm: body.confirm, ip: req.ip ?? '' });
    switch (result.outcome) {
      case 'throttled':
        res.set(rateLimitHeaders(result.decision));
        return form(res, 429, { returnTo, username, error: `Too many sign-ups from this address. ${retryText(result.decision.retryAfter)}` });
      case 'invalid':
        return form(res, 400, { returnTo, username, error: result.message });
      case 'taken':
        return form(res, 409, { returnTo, username, error: 'That username is taken (in any mix of capitals). Choose another.' });
      case 'ok':
        await startSession(deps, req, res, result.user.id);
        if (returnTo) handOffSignUp(res, deps.key, returnTo, result.user.id, deps.secure);
        res.redirect(303, returnTo ?? '/account');
    }
  }));
  return r;
}
