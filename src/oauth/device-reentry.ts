// A device confirmation left without a decision does not burn its code. When a user confirms a user
// code ("Yes, it matches"), the provider marks the device code `inFlight` and starts the sign-in and
// consent interaction; from then on it refuses the code at the verification page (AlreadyUsedError)
// until the code expires, so a user who closed that page cannot enter the code again for the rest of
// its ten minutes. The provider keeps the lock so that nobody else takes over a confirmation in
// progress: here the lock is given back to the browser that took it, and to no other.
//
// In front of the provider's POST of the verification page: a confirmation of a free code gives this
// browser a mark (an HMAC of the code, path-scoped to the verification page, living as long as the
// code); entering the code again from a browser holding the mark, while the code is still undecided
// (no approval, no denial, not expired), clears `inFlight` through the provider's DeviceCode model,
// and the provider then shows the confirmation again as for a new code. A confirmation started in one
// browser and abandoned still locks out every other browser until the code expires.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import type Provider from 'oidc-provider';
import { strictRouter } from '../rest/routing.ts';
import { readCookie } from './cookies.ts';
import { OAUTH_ROUTES } from './routes.ts';

const COOKIE = 'mts_device_confirmed';

type Deps = { provider: Provider; key: string; secure: boolean };
type DeviceCode = NonNullable<Awaited<ReturnType<Provider['DeviceCode']['findByUserCode']>>>;

/** The provider's normalisation of a typed user code (lib/helpers/user_codes.js): upper case, no separators. */
const normalize = (input: string) => input.replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/\W/g, '');

const mark = (key: string, code: DeviceCode) => createHmac('sha256', key).update(`device-confirmed:${code.jti}:${code.exp}`).digest('base64url');

function holdsMark(req: Request, key: string, code: DeviceCode): boolean {
  const given = Buffer.from(readCookie(req, COOKIE) ?? '');
  const expected = Buffer.from(mark(key, code));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const undecided = (code: DeviceCode) => !code.error && !code.accountId && !code.isExpired;

async function beforeVerification(deps: Deps, req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (typeof body.user_code !== 'string' || !body.user_code) return;
  const code = await deps.provider.DeviceCode.findByUserCode(normalize(body.user_code), { ignoreExpiration: true });
  if (!code || !undecided(code)) return;
  if (body.confirm !== undefined) {
    // Only a free code: a browser confirming a code already in flight is refused by the provider and gets no mark.
    if (code.inFlight) return;
    const path = OAUTH_ROUTES.code_verification;
    res.append('Set-Cookie', `${COOKIE}=${mark(deps.key, code)}; Path=${path}; Max-Age=${code.remainingTTL}; HttpOnly; SameSite=Lax${deps.secure ? '; Secure' : ''}`);
    return;
  }
  if (code.inFlight && holdsMark(req, deps.key, code)) {
    code.inFlight = undefined;
    await code.save();
  }
}

export function deviceReentry(deps: Deps): Router {
  const r = strictRouter();
  r.post(OAUTH_ROUTES.code_verification, (req: Request, res: Response, next: NextFunction) => {
    beforeVerification(deps, req, res).then(() => next(), next);
  });
  return r;
}
