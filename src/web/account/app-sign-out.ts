// POST /account/sign-out as the first-party web app calls it: `fetch` from its own page, with
// `Authorization: Bearer <its access token>` and no body. It ends everything the sign-in started: every
// grant, code and token of the web app for the token's user (refresh tokens too, in every browser), and
// this browser's session with the authorization server (the one /account uses, browser-session.ts), so a
// silent `prompt=none` authorization answers `login_required` afterwards. 204 when done.
//
// The bearer token is the defence against cross-site requests: a page elsewhere can make the browser
// post here with its cookies, but cannot hold the web app's token (it lives only in the app page's
// memory). A request that says where it comes from must come from BASE_URL's origin as well. Answers
// are the platform's error envelope: 401 `invalid_token` without a valid token, 403 `first_party_only`
// for another origin or another app's token, 429 `rate_limited` past the `account-forms` bucket it shares
// with the account pages' sign-out.
//
// The account pages' own sign-out form (a form body with its CSRF field) is not this: it is passed on
// unchanged. What is the app's: any request with a bearer token, and any request that is no form.
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { FIRST_PARTY_CLIENT_ID } from '../../core/apps/first-party.ts';
import { revokeAppGrants } from '../../core/connected-apps/service.ts';
import { ApiError } from '../../core/errors.ts';
import { actorForToken, bearerToken } from '../../oauth/bearer.ts';
import { signOutBrowser, type SessionDeps } from '../../oauth/browser-session.ts';
import { rateLimited } from '../../rest/rate-limit.ts';
import { countFormPost, type FormLimitDeps } from './form-limits.ts';

/** `origin`: BASE_URL's origin, the only one the web app's page has. */
type Deps = SessionDeps & FormLimitDeps & { orm: MikroORM; origin: string };

const isForm = (req: Request) => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
const hasBearer = (req: Request) => /^Bearer\s/i.test(req.headers.authorization ?? '');

export function appSignOut(deps: Deps) {
  const signOut = async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== deps.origin) {
      throw new ApiError('first_party_only', `Only the web app at ${deps.origin} signs out here`);
    }
    const token = bearerToken(req.headers.authorization);
    const actor = token ? await actorForToken(deps.provider, deps.orm, token) : null;
    // Counted per user, or per address for a missing or dead token, before anything is ended.
    const decision = await countFormPost(deps, req, res, 'account-forms', actor?.userId);
    if (decision && !decision.allowed) throw rateLimited(decision);
    if (!actor) throw new ApiError('invalid_token', 'The access token is missing, invalid, expired or revoked');
    if (actor.clientId !== FIRST_PARTY_CLIENT_ID) {
      throw new ApiError('first_party_only', "Only the web app signs out here; other apps revoke their tokens at the revocation endpoint");
    }
    await revokeAppGrants(deps.orm.em.fork(), actor.userId, FIRST_PARTY_CLIENT_ID);
    // Whoever this browser is signed in as: the sign-out is this browser's, asked for by the app's page.
    await signOutBrowser(deps, req, res);
    res.status(204).end();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBearer(req) && isForm(req)) return next();
    signOut(req, res).catch(next);
  };
}
