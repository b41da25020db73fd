// The browser side of an authorization: sign-in and consent for an interaction the provider started
// (authorization code flow, or a device code a user confirmed). Every step belongs to the browser that
// started the authorization: the pages and the forms posted below them read their interaction through
// the provider's `interactionDetails`, which checks the interaction cookie it set in that browser, so a
// sign-in link sent to someone else signs no one in. Consent of a code flow is posted to
// `POST /oauth/authorize` (the consent decision in the platform OpenAPI document), where that cookie (scoped to the interaction's own path) is
// not sent: the consent page sets a secret of its own scoped to that path, and the form's token is
// bound to it (consent-cookie.ts). Consent of a device flow is posted to the interaction itself.
// Passwords go through the guessing throttle (core/accounts/sign-in.ts). The sign-in page links to
// sign-up when sign-ups are open; a user who signs up there comes back to this interaction's page with
// a handoff that finishes the login step (sign-up-handoff.ts), still read through `interactionDetails`.
// The login step is the browser's one sign-in (browser-session.ts): finished here, it signs the browser in
// at /account too; a browser that signed in at /account after the interaction began finishes it from
// that session, unless the app asked for a fresh sign-in.
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../rest/routing.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import { findUserById } from '../core/accounts/service.ts';
import { signInWithPassword, throttledText } from '../core/accounts/sign-in.ts';
import { FailureLimits, rateLimitHeaders, type RateLimits } from '../core/limits/limiter.ts';
import { limitById } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { signedInAccount } from './browser-session.ts';
import { consentCookieToken, validConsentToken, clearConsentCookie } from './consent-cookie.ts';
import { csrfToken, validCsrf } from './csrf.ts';
import { consentPage, signInPage, type ConsentForm } from './pages/interaction.ts';
import { PAGE_HEADERS, page, escapeHtml } from './pages/layout.ts';
import { INTERACTION_BASE, OAUTH_ROUTES } from './routes.ts';
import { interactionPath, signUpLink, takeSignUpHandoff } from './sign-up-handoff.ts';

type Deps = { provider: Provider; orm: MikroORM; csrfKey: string; limits: RateLimits; log: Logger; secure: boolean; signups: boolean };
type Details = InstanceType<Provider['Interaction']>;

function send(res: Response, status: number, html: string) {
  res.status(status).set(PAGE_HEADERS).send(html);
}

function problem(res: Response, status: number, message: string) {
  send(res, status, page('Something went wrong', `<p>${escapeHtml(message)}</p>`));
}

const OTHER_USER = 'This browser is signed in as someone else. Sign out on your account page (/account) first, then sign in here.';
const OTHER_BROWSER = 'This sign-in was started in another browser, or it has expired. Nobody was signed in. Start again from the app, in this browser.';

/**
 * The interaction of this browser, as the provider's cookie names it, and only when it is the one the
 * path names; undefined when the browser did not start it (or it expired, or its session changed).
 */
async function browserInteraction(deps: Deps, req: Request, res: Response): Promise<Details | undefined> {
  try {
    const d = await deps.provider.interactionDetails(req, res);
    return d.uid === req.params.uid ? d : undefined;
  } catch (err) {
    if ((err as { name?: string }).name === 'SessionNotFound') return undefined;
    throw err;
  }
}

/**
 * The interaction a consent form posted to /oauth/authorize names, checked as interactionDetails checks
 * its own: it exists, and the provider session it was started in still belongs to the same account.
 */
async function postedInteraction(deps: Deps, uid: string): Promise<Details | undefined> {
  const d = await deps.provider.Interaction.find(uid);
  if (!d) return undefined;
  if (d.session?.uid) {
    const session = await deps.provider.Session.findByUid(d.session.uid);
    if (!session || session.accountId !== d.session.accountId) return undefined;
  }
  return d;
}

/**
 * The user this browser signed in as after the interaction began (at /account, in another tab), when
 * the sign-in was asked for only because there was no session then. An app that asks for a fresh sign-in
 * (`prompt=login`, `max_age`) still gets the password typed.
 */
async function alreadySignedIn(deps: Deps, d: Details, req: Request, res: Response): Promise<string | undefined> {
  if (d.prompt.name !== 'login' || d.prompt.reasons.join() !== 'no_session') return undefined;
  return signedInAccount(deps, req, res);
}

/** The consent form's fields for a code flow (POST /oauth/authorize in the platform OpenAPI document); a device flow's consent posts to the interaction. */
function consentForm(deps: Deps, d: Details, res: Response): ConsentForm {
  const p = d.params as Record<string, string | undefined>;
  if (p.redirect_uri) {
    return {
      action: OAUTH_ROUTES.authorization,
      fields: {
        client_id: p.client_id,
        redirect_uri: p.redirect_uri,
        response_type: p.response_type,
        code_challenge: p.code_challenge,
        code_challenge_method: p.code_challenge_method,
        scope: p.scope,
        state: p.state,
        interaction: d.uid,
        csrf: consentCookieToken(res, deps.csrfKey, d, deps.secure),
      },
    };
  }
  return { action: `${INTERACTION_BASE}/${d.uid}/consent`, fields: { csrf: csrfToken(deps.csrfKey, d.uid) } };
}

async function render(deps: Deps, d: Details, res: Response, opts: { status?: number; error?: string; username?: string } = {}) {
  const client = await deps.provider.Client.find(String(d.params.client_id));
  const appName = client?.clientName ?? String(d.params.client_id);
  if (d.prompt.name === 'login') {
    const csrf = csrfToken(deps.csrfKey, d.uid);
    const signUp = signUpLink(deps.signups, interactionPath(d.uid));
    send(res, opts.status ?? 200, signInPage({ action: `${INTERACTION_BASE}/${d.uid}/login`, csrf, appName, error: opts.error, username: opts.username, signUp }));
    return;
  }
  const user = await findUserById(deps.orm.em.fork(), String(d.session?.accountId));
  const scopes = String(d.params.scope ?? '').split(' ').filter(Boolean);
  send(res, 200, consentPage({ appName, username: user?.username ?? '', scopes, form: consentForm(deps, d, res) }));
}

/** The grant an approval hands back to the provider, or a 429 page when the user approves too often. */
async function approve(deps: Deps, d: Details, res: Response): Promise<string | undefined> {
  const accountId = String(d.session?.accountId);
  const clientId = String(d.params.client_id);
  // Approvals per user (30 a minute, the `consent-approvals` bucket of core/limits/table.ts): counted before anything is granted.
  const approvals = await deps.limits.check([{ limit: limitById('consent-approvals'), key: accountId }]).catch(() => undefined);
  if (approvals && !approvals.allowed) {
    for (const [name, value] of Object.entries(rateLimitHeaders(approvals))) res.setHeader(name, value);
    problem(res, 429, `Too many approvals in a short time. Try again in ${approvals.retryAfter} seconds.`);
    return undefined;
  }
  const grant = d.grantId ? await deps.provider.Grant.find(d.grantId) : new deps.provider.Grant({ accountId, clientId });
  if (!grant) throw new Error('grant of the interaction not found');
  // Without resource indicators the provider keeps every scope as an "OIDC" scope of the grant.
  const missing = (d.prompt.details as { missingOIDCScope?: string[] }).missingOIDCScope ?? [];
  if (missing.length) grant.addOIDCScope(missing.join(' '));
  return grant.save();
}

const DENIED = { error: 'access_denied', error_description: 'The user denied the request' };

export function interactionRoutes(deps: Deps): Router {
  const r = strictRouter();
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);
  const failures = new FailureLimits(deps.limits);

  r.get(`${INTERACTION_BASE}/:uid`, wrap(async (req, res) => {
    const d = await browserInteraction(deps, req, res);
    if (!d) return problem(res, 403, OTHER_BROWSER);
    const signedUp = d.prompt.name === 'login' ? takeSignUpHandoff(req, res, deps.csrfKey, d.uid, deps.secure) : undefined;
    const signedIn = signedUp ?? (await alreadySignedIn(deps, d, req, res));
    if (signedIn && (await findUserById(deps.orm.em.fork(), signedIn))) {
      return deps.provider.interactionFinished(req, res, { login: { accountId: signedIn } }, { mergeWithLastSubmission: false });
    }
    await render(deps, d, res);
  }));

  r.post(`${INTERACTION_BASE}/:uid/login`, wrap(async (req, res) => {
    const d = await browserInteraction(deps, req, res);
    if (!d) return problem(res, 403, OTHER_BROWSER);
    if (d.prompt.name !== 'login') return problem(res, 400, 'This sign-in is already done. Go back to the app.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!validCsrf(deps.csrfKey, d.uid, body.csrf)) return problem(res, 403, 'The form has expired. Go back and try again.');
    const username = typeof body.username === 'string' ? body.username : '';
    const signIn = await signInWithPassword(deps.orm.em.fork(), failures, { username: body.username, password: body.password, ip: req.ip ?? '' });
    if (signIn.outcome === 'throttled') {
      for (const [name, value] of Object.entries(rateLimitHeaders(signIn.decision))) res.setHeader(name, value);
      return render(deps, d, res, { status: 429, error: throttledText(signIn.decision), username });
    }
    if (signIn.outcome === 'wrong') return render(deps, d, res, { status: 400, error: 'Wrong username or password.', username });
    // The browser's one session belongs to someone else (an app asked for a fresh sign-in, and another
    // user typed theirs): the provider would end that session in the middle of the authorization, and
    // the page cannot say whose data the app gets. The other user signs out at /account first.
    const current = await signedInAccount(deps, req, res);
    if (current && current !== signIn.user.id) return render(deps, d, res, { status: 400, error: OTHER_USER, username });
    await deps.provider.interactionFinished(req, res, { login: { accountId: signIn.user.id } }, { mergeWithLastSubmission: false });
  }));

  r.post(`${INTERACTION_BASE}/:uid/consent`, wrap(async (req, res) => {
    const d = await browserInteraction(deps, req, res);
    if (!d) return problem(res, 403, OTHER_BROWSER);
    if (d.prompt.name !== 'consent') return problem(res, 400, 'This request has expired. Start again from your device.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!validCsrf(deps.csrfKey, d.uid, body.csrf)) return problem(res, 403, 'The form has expired. Go back and try again.');
    if (body.decision !== 'approve' && body.decision !== 'deny') return problem(res, 400, 'Choose Allow or Deny.');
    if (body.decision === 'deny') return deps.provider.interactionFinished(req, res, DENIED);
    const grantId = await approve(deps, d, res);
    if (grantId) await deps.provider.interactionFinished(req, res, { consent: { grantId } });
  }));

  // The consent form (the platform OpenAPI document's consent decision): POST /oauth/authorize with `decision`. Without `decision` it is an ordinary
  // authorization request by POST, which the provider itself answers.
  r.post(OAUTH_ROUTES.authorization, (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!('decision' in body)) return next();
    consentDecision(req, res, body).catch(next);
  });

  const consentDecision = async (req: Request, res: Response, body: Record<string, unknown>) => {
    const uid = typeof body.interaction === 'string' ? body.interaction : '';
    // The token is bound to the secret the consent page set in the browser that the provider's cookie
    // had already checked: another browser, or a page elsewhere posting here, has no such secret.
    if (!uid || !validConsentToken(req, deps.csrfKey, uid, body.csrf)) return problem(res, 403, OTHER_BROWSER);
    const d = await postedInteraction(deps, uid);
    if (!d || d.prompt.name !== 'consent') return problem(res, 400, 'This request has expired. Start again from the app.');
    const p = d.params as Record<string, unknown>;
    for (const field of ['client_id', 'redirect_uri', 'code_challenge'] as const) {
      // A request the provider let through without PKCE (a confidential app through the Trakt facade,
      // pkce.ts) has no code_challenge, and its consent form carries none either.
      if (field === 'code_challenge' && p[field] === undefined && body[field] === undefined) continue;
      if (typeof body[field] !== 'string' || body[field] !== p[field]) return problem(res, 400, `${field} does not match the request being approved.`);
    }
    if (body.decision !== 'approve' && body.decision !== 'deny') return problem(res, 400, 'decision must be approve or deny.');
    const result = body.decision === 'deny' ? DENIED : await approve(deps, d, res).then((grantId) => grantId && { ...d.lastSubmission, consent: { grantId } });
    if (!result) return;
    clearConsentCookie(res, uid, deps.secure);
    // What interactionFinished does, on the interaction this form named (its cookie is not sent here).
    d.result = result;
    await d.save(d.exp - Math.floor(Date.now() / 1000));
    res.redirect(303, d.returnTo);
  };
  return r;
}
