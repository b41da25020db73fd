// One sign-in per browser: the authorization server's session (oidc-provider's Session model, kept in
// oauth_artifact like its other models, named by its signed `_session` cookie) is the browser's session
// for the whole site. Signing in at /account starts it; signing in on an authorization's or a device
// confirmation's page starts it (the provider's own `interactionFinished` with `login`); either way the
// account pages and the next approval see the same signed-in user, and signing out destroys it on the
// server, so a copy of the old cookie finds nothing. Nothing stands beside it: the account pages read
// it through `provider.Session.get`, as the provider's own endpoints do.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { longCookie, SESSION_TTL } from './provider.ts';

/** `csrf`: the token the account pages' forms carry, bound to this session and its user. */
export type BrowserSession = { userId: string; csrf: string };

export type SessionDeps = { provider: Provider; key: string; secure: boolean };

/** The provider's view of the request, its cookies sent or refused as BASE_URL's scheme says. */
function providerContext(deps: Pick<SessionDeps, 'provider' | 'secure'>, req: Request, res: Response) {
  const ctx = deps.provider.createContext(req, res);
  ctx.cookies.secure = deps.secure;
  return ctx;
}

const csrfFor = (key: string, uid: string, userId: string) => createHmac('sha256', key).update(`account-csrf:${uid}:${userId}`).digest('base64url');

/** The user this browser is signed in as, or undefined (no cookie, a forged one, or one signed out or expired). */
export async function signedInAccount(deps: Pick<SessionDeps, 'provider' | 'secure'>, req: Request, res: Response): Promise<string | undefined> {
  return (await deps.provider.Session.get(providerContext(deps, req, res))).accountId;
}

/** The signed-in session of this browser, or undefined. */
export async function browserSession(deps: SessionDeps, req: Request, res: Response): Promise<BrowserSession | undefined> {
  const session = await deps.provider.Session.get(providerContext(deps, req, res));
  if (!session.accountId) return undefined;
  return { userId: session.accountId, csrf: csrfFor(deps.key, session.uid, session.accountId) };
}

export function validSessionCsrf(session: BrowserSession, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Signs the browser in as `accountId` with a new session: whatever session the browser held before (an
 * unsigned one, someone else's on a shared computer, or one an attacker planted) is destroyed, so no
 * identifier known before the password was typed names the signed-in session.
 */
export async function signInBrowser(deps: SessionDeps, req: Request, res: Response, accountId: string): Promise<void> {
  const ctx = providerContext(deps, req, res);
  const before = await deps.provider.Session.get(ctx);
  if (before.exp) await before.destroy();
  const session = new deps.provider.Session();
  session.loginAccount({ accountId });
  await session.save(SESSION_TTL);
  ctx.cookies.set(deps.provider.cookieName('session'), session.jti, { ...longCookie(deps.secure), maxAge: SESSION_TTL * 1000 });
}

/** Signs the browser out: its session is destroyed on the server and the cookie cleared. */
export async function signOutBrowser(deps: SessionDeps, req: Request, res: Response): Promise<void> {
  const ctx = providerContext(deps, req, res);
  const session = await deps.provider.Session.get(ctx);
  if (session.exp) await session.destroy();
  ctx.cookies.set(deps.provider.cookieName('session'), null, longCookie(deps.secure));
}
