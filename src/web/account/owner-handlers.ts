// The handlers of the pages where a signed-in user manages what they own (their developer apps and the
// apps' webhooks): a page shows the sign-in form to a visitor; an action counts in its form bucket first
// (429 when full, form-limits.ts), then needs the session and its CSRF token (403); anything the user
// does not own is the same 404 as something that does not exist.
import type { NextFunction, Request, Response } from 'express';
import type Provider from 'oidc-provider';
import type { MikroORM } from '@mikro-orm/postgresql';
import { findUserById } from '../../core/accounts/service.ts';
import { ApiError } from '../../core/errors.ts';
import type { RateLimits } from '../../core/limits/limiter.ts';
import type { Logger } from '../../core/log.ts';
import { browserSession, validSessionCsrf, type BrowserSession } from '../../oauth/browser-session.ts';
import { PAGE_HEADERS, page } from '../../oauth/pages/layout.ts';
import { loginNonce } from './account-session.ts';
import { refusedByFormLimit, type FormLimitId } from './form-limits.ts';
import { accountSignInPage } from '../pages/account.ts';

/** `signUp`: where the sign-in page links to make an account; unset when sign-ups are closed. */
export type OwnerDeps = { orm: MikroORM; provider: Provider; limits: RateLimits; log: Logger; key: string; secure: boolean; signUp?: string | undefined };
export type Form = Record<string, string | undefined>;

export const send = (res: Response, status: number, html: string) => void res.status(status).set(PAGE_HEADERS).send(html);

export const isCode = (err: unknown, code: string): err is ApiError => err instanceof ApiError && err.code === code;

/**
 * `home`: where a visitor signs in to and an expired session is sent back to; `notFoundPage`: the 404
 * answered for a `not_found` from the core.
 */
export function ownerHandlers(deps: OwnerDeps, opts: { home: string; notFoundPage: () => string }) {
  const em = () => deps.orm.em.fork();
  const orNotFound = (res: Response, next: NextFunction) => (err: unknown) => (isCode(err, 'not_found') ? send(res, 404, opts.notFoundPage()) : next(err));

  /** Pages: the signed-in user, or the sign-in form (coming back to `home`). */
  const view = (fn: (req: Request, res: Response, session: BrowserSession, username: string) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) =>
      (async () => {
        const session = await browserSession(deps, req, res);
        const user = session ? await findUserById(em(), session.userId) : null;
        if (!session || !user) return send(res, 200, accountSignInPage({ nonce: loginNonce(res, deps.secure), next: opts.home, signUp: deps.signUp }));
        await fn(req, res, session, user.username);
      })().catch(orNotFound(res, next));

  /** Actions: counted in their bucket (429 when full), then a session and its CSRF token, or 403. */
  const act = (limit: FormLimitId, fn: (req: Request, res: Response, session: BrowserSession, body: Form) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) =>
      (async () => {
        const body = (req.body ?? {}) as Form;
        const session = await browserSession(deps, req, res);
        if (await refusedByFormLimit(deps, req, res, limit, session?.userId)) return;
        if (!session || !validSessionCsrf(session, body.csrf)) {
          return send(res, 403, page('Something went wrong', `<p>Your session has expired. <a href="${opts.home}">Sign in again</a>.</p>`));
        }
        await fn(req, res, session, body);
      })().catch(orNotFound(res, next));

  return { view, act };
}
