// The browser side of an authorization: sign-in and consent for an interaction the provider started
// (authorization code flow, or a device code a user confirmed). Consent of a code flow is posted to
// `POST /oauth/authorize` with `decision` (the spec's form); consent of a device flow to the
// interaction itself. Every form carries a CSRF token bound to its interaction.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type Provider from 'oidc-provider';
import { findUserById, verifyPassword } from '../core/accounts/service.ts';
import { rateLimitHeaders, type RateLimits } from '../core/limits/limiter.ts';
import { limitById } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { csrfToken, validCsrf } from './csrf.ts';
import { consentPage, signInPage, type ConsentForm } from './pages/interaction.ts';
import { PAGE_HEADERS, page, escapeHtml } from './pages/layout.ts';
import { INTERACTION_BASE, OAUTH_ROUTES } from './routes.ts';

type Deps = { provider: Provider; orm: MikroORM; csrfKey: string; limits: RateLimits; log: Logger };
type Details = InstanceType<Provider['Interaction']>;

function send(res: Response, status: number, html: string) {
  res.status(status).set(PAGE_HEADERS).send(html);
}

function problem(res: Response, status: number, message: string) {
  send(res, status, page('Something went wrong', `<p>${escapeHtml(message)}</p>`));
}

/**
 * The interaction by its id. Its cookie is scoped to the interaction's own path, so the spec's consent
 * form (posted to /oauth/authorize) could not use it; the browser is still checked where it matters:
 * the provider's resume step accepts only the browser that started the authorization.
 */
async function details(deps: Deps, uid: unknown): Promise<Details | undefined> {
  if (typeof uid !== 'string' || !uid) return undefined;
  return (await deps.provider.Interaction.find(uid)) ?? undefined;
}

/** Records the outcome and sends the browser back to the provider (what interactionFinished does). */
async function finish(d: Details, res: Response, result: Record<string, unknown>) {
  d.result = result;
  await d.save(d.exp - Math.floor(Date.now() / 1000));
  res.redirect(303, d.returnTo);
}

/** The spec's consent form fields for a code flow; a device flow's consent posts to the interaction. */
function consentForm(d: Details, csrf: string): ConsentForm {
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
        csrf,
      },
    };
  }
  return { action: `${INTERACTION_BASE}/${d.uid}/consent`, fields: { csrf } };
}

async function render(deps: Deps, d: Details, res: Response, error?: string, username?: string) {
  const client = await deps.provider.Client.find(String(d.params.client_id));
  const appName = client?.clientName ?? String(d.params.client_id);
  const csrf = csrfToken(deps.csrfKey, d.uid);
  if (d.prompt.name === 'login') {
    send(res, error ? 400 : 200, signInPage({ action: `${INTERACTION_BASE}/${d.uid}/login`, csrf, appName, error, username }));
    return;
  }
  const user = await findUserById(deps.orm.em.fork(), String(d.session?.accountId));
  const scopes = String(d.params.scope ?? '').split(' ').filter(Boolean);
  send(res, 200, consentPage({ appName, username: user?.username ?? '', scopes, form: consentForm(d, csrf) }));
}

/** Approves (a grant with the requested scopes) or denies, and hands the browser back to the provider. */
async function decide(deps: Deps, d: Details, decision: string, res: Response) {
  if (decision === 'deny') return finish(d, res, { error: 'access_denied', error_description: 'The user denied the request' });
  const accountId = String(d.session?.accountId);
  const clientId = String(d.params.client_id);
  // Approvals per user (spec: 30 a minute): counted before anything is granted.
  const approvals = await deps.limits.check([{ limit: limitById('consent-approvals'), key: accountId }]).catch(() => undefined);
  if (approvals && !approvals.allowed) {
    for (const [name, value] of Object.entries(rateLimitHeaders(approvals))) res.setHeader(name, value);
    return problem(res, 429, `Too many approvals in a short time. Try again in ${approvals.retryAfter} seconds.`);
  }
  const grant = d.grantId ? await deps.provider.Grant.find(d.grantId) : new deps.provider.Grant({ accountId, clientId });
  if (!grant) throw new Error('grant of the interaction not found');
  // Without resource indicators the provider keeps every scope as an "OIDC" scope of the grant.
  const missing = (d.prompt.details as { missingOIDCScope?: string[] }).missingOIDCScope ?? [];
  if (missing.length) grant.addOIDCScope(missing.join(' '));
  const grantId = await grant.save();
  await finish(d, res, { ...d.lastSubmission, consent: { grantId } });
}

export function interactionRoutes(deps: Deps): Router {
  const r = express.Router();
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);

  r.get(`${INTERACTION_BASE}/:uid`, wrap(async (req, res) => {
    const d = await details(deps, req.params.uid);
    if (!d) return problem(res, 400, 'This sign-in has expired or was opened in another browser. Start again from the app.');
    await render(deps, d, res);
  }));

  r.post(`${INTERACTION_BASE}/:uid/login`, wrap(async (req, res) => {
    const d = await details(deps, req.params.uid);
    if (!d || d.prompt.name !== 'login') return problem(res, 400, 'This sign-in has expired. Start again from the app.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!validCsrf(deps.csrfKey, d.uid, body.csrf)) return problem(res, 403, 'The form has expired. Go back and try again.');
    const username = typeof body.username === 'string' ? body.username : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const user = username && password ? await verifyPassword(deps.orm.em.fork(), username, password) : null;
    if (!user) return render(deps, d, res, 'Wrong username or password.', username);
    await finish(d, res, { login: { accountId: user.id } });
  }));

  r.post(`${INTERACTION_BASE}/:uid/consent`, wrap(async (req, res) => {
    const d = await details(deps, req.params.uid);
    if (!d || d.prompt.name !== 'consent') return problem(res, 400, 'This request has expired. Start again from your device.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!validCsrf(deps.csrfKey, d.uid, body.csrf)) return problem(res, 403, 'The form has expired. Go back and try again.');
    if (body.decision !== 'approve' && body.decision !== 'deny') return problem(res, 400, 'Choose Allow or Deny.');
    await decide(deps, d, body.decision, res);
  }));

  // The spec's consent form: POST /oauth/authorize with `decision`. Without `decision` it is an ordinary
  // authorization request by POST, which the provider itself answers.
  r.post(OAUTH_ROUTES.authorization, (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!('decision' in body)) return next();
    consentDecision(res, body).catch(next);
  });

  const consentDecision = async (res: Response, body: Record<string, unknown>) => {
    const d = await details(deps, body.interaction);
    if (!d || d.prompt.name !== 'consent') return problem(res, 400, 'This request has expired. Start again from the app.');
    if (!validCsrf(deps.csrfKey, d.uid, body.csrf)) return problem(res, 403, 'The form has expired. Go back and try again.');
    const p = d.params as Record<string, unknown>;
    for (const field of ['client_id', 'redirect_uri', 'code_challenge'] as const) {
      if (typeof body[field] !== 'string' || body[field] !== p[field]) return problem(res, 400, `${field} does not match the request being approved.`);
    }
    if (body.decision !== 'approve' && body.decision !== 'deny') return problem(res, 400, 'decision must be approve or deny.');
    await decide(deps, d, body.decision, res);
  };
  return r;
}
