// What a failed call says to a person: the service's message, with what to do next. A rate-limited call
// says when to try again (the `retry_after` the service sends with its 429).
import { isServiceError } from '@media-tracking/client';

export function errorText(err: unknown): string {
  // No answer at all (the network, or a server that is down): the client wraps fetch's own error.
  if (isServiceError(err) && !err.data) return 'The service cannot be reached. Check your connection and try again.';
  if (isServiceError(err)) {
    const data = err.data as { error?: string; retry_after?: number; httpStatus?: number } | undefined;
    switch (data?.error) {
      case 'rate_limited':
        return `Too many requests: try again in ${data.retry_after ?? 1} s.`;
      case 'invalid_token':
        return 'Your session has ended. Sign in again.';
      case 'not_found':
        return 'Not found. It may have been removed.';
      case 'server_error':
        return 'The service had a problem. Try again in a moment.';
      default:
        return err.message || 'Something went wrong. Try again.';
    }
  }
  if (err instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  return err instanceof Error && err.message ? err.message : 'Something went wrong. Try again.';
}

/** Worth trying again by itself: a network failure or a server error, never a refusal. */
export function retryable(err: unknown): boolean {
  if (!isServiceError(err)) return err instanceof TypeError;
  if (!err.data) return true;
  const status = (err.data as { httpStatus?: number } | undefined)?.httpStatus ?? 0;
  return status >= 500;
}

/** The service's error code of a failed call, if it is one. */
export function errorCode(err: unknown): string | undefined {
  return isServiceError(err) ? (err.data as { error?: string } | undefined)?.error : undefined;
}
