// /account/export: the signed-in user's page to download the full export (core/export), the same
// document GET /api/platform/v1/me/export gives official apps. The download is a POST with the account
// session's CSRF token, so no other site can start an export in the user's browser; it counts in the
// `export-page` bucket (10 an hour per user, always on like the other forms' buckets) and streams the document as an attachment.
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../../rest/routing.ts';
import type Provider from 'oidc-provider';
import type { MikroORM } from '@mikro-orm/postgresql';
import { findUserById } from '../../core/accounts/service.ts';
import { exportHead, exportJson } from '../../core/export/document.ts';
import { EXPORT_FORMAT } from '../../core/export/schema.ts';
import { rateLimitHeaders, type RateLimits } from '../../core/limits/limiter.ts';
import { limitById } from '../../core/limits/table.ts';
import type { Logger } from '../../core/log.ts';
import { streamBody } from '../../rest/stream-body.ts';
import { browserSession, validSessionCsrf } from '../../oauth/browser-session.ts';
import { loginNonce } from './account-session.ts';
import { accountSignInPage } from '../pages/account.ts';
import { accountExportPage } from '../pages/account-export.ts';
import { PAGE_HEADERS, page } from '../../oauth/pages/layout.ts';

type Deps = { orm: MikroORM; provider: Provider; limits: RateLimits; log: Logger; key: string; secure: boolean; signUp?: string | undefined };

const send = (res: Response, status: number, html: string) => void res.status(status).set(PAGE_HEADERS).send(html);

export function accountExportRoutes(deps: Deps): Router {
  const r = strictRouter();
  const em = () => deps.orm.em.fork();
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);

  r.get('/account/export', wrap(async (req, res) => {
    const session = await browserSession(deps, req, res);
    const user = session ? await findUserById(em(), session.userId) : null;
    if (!session || !user) return send(res, 200, accountSignInPage({ nonce: loginNonce(res, deps.secure), next: '/account/export', signUp: deps.signUp }));
    send(res, 200, accountExportPage({ username: user.username, csrf: session.csrf }));
  }));

  r.post('/account/export', wrap(async (req, res) => {
    const session = await browserSession(deps, req, res);
    const user = session ? await findUserById(em(), session.userId) : null;
    if (!session || !user || !validSessionCsrf(session, (req.body as Record<string, unknown> | undefined)?.csrf)) {
      return send(res, 403, page('Something went wrong', '<p>Your session has expired. <a href="/account/export">Sign in again</a>.</p>'));
    }
    const decision = await deps.limits.checkAlways([{ limit: limitById('export-page'), key: user.id }]);
    if (decision) for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    if (decision && !decision.allowed) {
      return send(res, 429, accountExportPage({ username: user.username, csrf: session.csrf, error: `You have downloaded your data ${decision.limit} times this hour. Try again in ${Math.ceil((decision.retryAfter ?? 60) / 60)} minutes.` }));
    }
    const now = new Date();
    const fork = em();
    const head = await exportHead(fork, user.id, now);
    res.status(200);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${EXPORT_FORMAT}-${user.username}-${now.toISOString().slice(0, 10)}.json"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await streamBody(res, exportJson(fork, user.id, head), deps.log.child({ request_id: req.id }));
  }));
  return r;
}
