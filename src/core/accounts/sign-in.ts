// Password sign-in with guessing throttled: every form that takes a password goes through here. Failed
// attempts are counted per account (the username as typed, case-folded, so unknown names count too and
// do not reveal which exist) and per client address, in the `sign-in-account` and `sign-in-ip` buckets of
// the limits table (shared through Redis in services mode). Once a bucket is full the next attempt is
// refused without checking the password, until its window ends; a success clears the account's count.
// Successful sign-ins are counted per account too (`sign-in-success`): each costs the same argon2 work,
// so a loop of the right password is held like a loop of wrong ones, at a rate no person signs in.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Decision, FailureLimits } from '../limits/limiter.ts';
import { limitById, type Bucket } from '../limits/table.ts';
import { verifyPassword, type User } from './service.ts';

export type SignInResult =
  | { outcome: 'ok'; user: User }
  | { outcome: 'wrong' }
  | { outcome: 'throttled'; decision: Decision & { retryAfter: number } };

/** The account bucket's key: a digest, so neither a long name nor a raw username sits in Redis. */
const accountKey = (username: string) => createHash('sha256').update(username.normalize('NFKC').toLowerCase()).digest('base64url').slice(0, 22);

export async function signInWithPassword(
  em: EntityManager,
  failures: FailureLimits,
  input: { username: unknown; password: unknown; ip: string },
): Promise<SignInResult> {
  const username = typeof input.username === 'string' ? input.username : '';
  const password = typeof input.password === 'string' ? input.password : '';
  // An empty field is no guess: nothing to check, nothing counted.
  if (!username || !password) return { outcome: 'wrong' };
  const account: Bucket = { limit: limitById('sign-in-account'), key: accountKey(username) };
  const buckets: Bucket[] = [account, { limit: limitById('sign-in-ip'), key: input.ip }];
  const successes: Bucket = { limit: limitById('sign-in-success'), key: account.key };
  const blocked = await failures.blocked([...buckets, successes]);
  if (blocked) return { outcome: 'throttled', decision: { ...blocked, retryAfter: blocked.retryAfter ?? 1 } };
  const user = await verifyPassword(em, username, password);
  if (!user) {
    await failures.failed(buckets);
    return { outcome: 'wrong' };
  }
  // Counted like a failure in its own bucket: spent, never refunded, checked before the password.
  await Promise.all([failures.forget(account), failures.failed([successes])]);
  return { outcome: 'ok', user };
}

/** What a throttled sign-in page says: which count is full, and when to try again. */
export function throttledText(decision: Decision & { retryAfter: number }): string {
  const what = decision.bucket === 'sign-in-success' ? 'Too many sign-ins to this account.' : 'Too many failed sign-ins.';
  return `${what} ${retryText(decision.retryAfter)}`;
}

/** "Try again in 14 minutes." for a throttled sign-in page. */
export function retryText(seconds: number): string {
  if (seconds < 60) return `Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  const minutes = Math.ceil(seconds / 60);
  return `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}
