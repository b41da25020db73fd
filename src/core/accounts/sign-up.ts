// Sign-up from the service's own form: the same rules as `user:create` (createUser), a password typed
// twice, and a per-address throttle in the `sign-up-ip` bucket of the limits table, counted by the
// failure limiter the sign-in forms use (always on, shared through Redis in services mode). Form
// mistakes are not counted: they cost nothing and reveal nothing. Each account made, and each username
// found taken, is counted before the username is tried: both cost argon2 work, and a taken name tells
// a prober that the account exists. Two sign-ups racing for one name (in any case) are decided by the
// unique index on lower(username): the loser gets `taken`, never an error.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../errors.ts';
import type { Decision, FailureLimits } from '../limits/limiter.ts';
import { limitById, type Bucket } from '../limits/table.ts';
import { checkPassword, checkUsername, normalizePassword } from './rules.ts';
import { createUser, type User } from './service.ts';

export type SignUpResult =
  | { outcome: 'ok'; user: User }
  | { outcome: 'invalid'; message: string }
  | { outcome: 'taken' }
  | { outcome: 'throttled'; decision: Decision & { retryAfter: number } };

export type SignUpInput = { username: unknown; password: unknown; confirm: unknown; ip: string };

/** The rules' messages start in lower case ("username must be ..."); a form shows a sentence. */
const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');

/** What is wrong with the form, in words for the page; or the username and password createUser may try. */
function checkSignUp(input: SignUpInput): string | { username: string; password: string } {
  if (typeof input.username !== 'string' || input.username === '') return 'Choose a username.';
  if (typeof input.password !== 'string' || input.password === '') return 'Choose a password.';
  if (typeof input.confirm !== 'string' || input.confirm === '') return 'Type the password a second time.';
  try {
    checkUsername(input.username);
    checkPassword(input.password);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_request') return sentence(err.message);
    throw err;
  }
  // Compared as they will be stored: the same password typed on two keyboards is the same password.
  if (normalizePassword(input.password) !== normalizePassword(input.confirm)) return 'The two passwords do not match.';
  return { username: input.username, password: input.password };
}

export async function signUp(em: EntityManager, failures: FailureLimits, input: SignUpInput): Promise<SignUpResult> {
  const bucket: Bucket = { limit: limitById('sign-up-ip'), key: input.ip };
  const blocked = await failures.blocked([bucket]);
  if (blocked) return { outcome: 'throttled', decision: { ...blocked, retryAfter: blocked.retryAfter ?? 1 } };
  const checked = checkSignUp(input);
  if (typeof checked === 'string') return { outcome: 'invalid', message: checked };
  await failures.failed([bucket]);
  try {
    return { outcome: 'ok', user: await createUser(em, checked) };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'conflict') return { outcome: 'taken' };
    throw err;
  }
}
