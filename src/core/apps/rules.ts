// What an app's name and allowed scopes may be. Each check returns the value to store or throws
// ApiError('invalid_request').
import { invalidRequest } from '../errors.ts';
import type { Scope } from '../schema/apps.ts';
import { isScope, RESERVED_SCOPE, SCOPES } from './scopes.ts';

const NAME_MAX = 100;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Trimmed; 1 to 100 characters without control characters (it is shown on consent pages). */
export function checkAppName(value: unknown): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!trimmed || [...trimmed].length > NAME_MAX || CONTROL.test(trimmed)) {
    throw invalidRequest(`app name must be 1 to ${NAME_MAX} characters without control characters`);
  }
  return trimmed;
}

/**
 * Omitted: all 16 scopes. Given: at least one, each one of the 16 (duplicates dropped), stored in the
 * order of SCOPES so two apps with the same scopes read the same.
 */
export function checkAllowedScopes(values: readonly unknown[] | undefined): Scope[] {
  if (values === undefined) return [...SCOPES];
  if (values.length === 0) throw invalidRequest('at least one scope is required (omit scopes for all of them)');
  for (const value of values) {
    if (value === RESERVED_SCOPE) throw invalidRequest(`${RESERVED_SCOPE} is reserved and never granted to developer apps`);
    if (typeof value !== 'string' || !isScope(value)) throw invalidRequest(`unknown scope ${JSON.stringify(String(value).slice(0, 100))}`);
  }
  return SCOPES.filter((scope) => values.includes(scope));
}
