// The buckets of the account and developer-app forms (limits table: `app-secret`, `app-create`,
// `app-edit`, `account-forms`, and for the apps' webhooks `webhook-forms` and `webhook-page-test`). Each
// POST counts before the form's work is done, per signed-in user, or per address without a session.
// Always on, whatever RATE_LIMITS says, like the sign-in buckets: a signed-in user looping a form (a
// secret rotation is an argon2 hash) is no client to trust. A full bucket is 429 with Retry-After and a
// page saying when to try again; nothing of the form is done. The web app's sign-out (app-sign-out.ts)
// counts in `account-forms` too, and answers its 429 in the envelope.
import type { Request, Response } from 'express';
import { retryText } from '../../core/accounts/sign-in.ts';
import { windowText } from '../../core/limits/docs.ts';
import { rateLimitHeaders, type Decision, type RateLimits } from '../../core/limits/limiter.ts';
import { limitById, type LimitId } from '../../core/limits/table.ts';
import type { Logger } from '../../core/log.ts';
import { clientIp } from '../../rest/rate-limit.ts';
import { PAGE_HEADERS, page } from '../../oauth/pages/layout.ts';

export type FormLimitDeps = { limits: RateLimits; log: Logger };

/** What a full bucket's page says was done too often. */
const DONE: Record<FormLimitId, string> = {
  'app-secret': 'rotated client secrets',
  'app-create': 'registered apps',
  'app-edit': 'changed your apps',
  'account-forms': 'sent account forms',
  'webhook-forms': 'changed your apps’ webhooks',
  'webhook-page-test': 'sent test messages to your webhooks',
};

export type FormLimitId = Extract<LimitId, 'app-secret' | 'app-create' | 'app-edit' | 'account-forms' | 'webhook-forms' | 'webhook-page-test'>;

/**
 * Counts the POST in its bucket, per user or, without one, per address, and sets the rate-limit headers.
 * The decision, or undefined when the limiter failed (logged: the request is let through).
 */
export async function countFormPost(deps: FormLimitDeps, req: Request, res: Response, id: FormLimitId, userId: string | undefined): Promise<Decision | undefined> {
  let decision;
  try {
    decision = await deps.limits.checkAlways([{ limit: limitById(id), key: userId ?? `ip:${clientIp(req)}` }]);
  } catch (err) {
    deps.log.error({ err, request_id: req.id }, 'rate limiter failed: form let through');
    return undefined;
  }
  if (decision) res.set(rateLimitHeaders(decision));
  return decision;
}

/**
 * Counts the form POST in its bucket. When the bucket is full, answers 429 itself and returns true; the
 * caller then does nothing more. The limiter failing lets the form through (logged).
 */
export async function refusedByFormLimit(deps: FormLimitDeps, req: Request, res: Response, id: FormLimitId, userId: string | undefined): Promise<boolean> {
  const limit = limitById(id);
  const decision = await countFormPost(deps, req, res, id, userId);
  if (!decision || decision.allowed) return false;
  const body = `<p>You have ${DONE[id]} ${limit.points} times in the last ${windowText(limit.seconds)}, the most allowed. ${retryText(decision.retryAfter ?? 1)}</p><p><a href="/account">Back to your account</a></p>`;
  res.status(429).set(PAGE_HEADERS).send(page('Too many requests', body));
  return true;
}
