// The one error type the service throws on purpose, and the table of machine codes -> HTTP status the
// APIs answer with. The table is every code an error envelope can carry (the `error` enum of the
// platform OpenAPI document): the OAuth endpoints' codes (RFC 6749, 7009, 8628) included, which the
// authorization server passes through (src/oauth/shape.ts maps any other to invalid_request).

const ERROR_STATUS = {
  invalid_request: 400,
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 400,
  expired: 400,
  invalid_grant: 400,
  invalid_scope: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_client: 401,
  invalid_token: 401,
  unauthorized_client: 400,
  insufficient_scope: 403,
  first_party_only: 403,
  app_owner_only: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  idempotency_indeterminate: 409,
  request_in_progress: 409,
  playback_state_conflict: 409,
  payload_too_large: 413,
  media_not_found: 422,
  rate_limited: 429,
  server_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every code, in the table's order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_STATUS, code);

/** The status a code is answered with (a few answers override it: 431 and 503, see ApiError's `status`). */
export const statusOf = (code: ErrorCode): number => ERROR_STATUS[code];

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>, status?: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status ?? ERROR_STATUS[code];
    this.extra = extra;
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const invalidRequest = (message: string) => new ApiError('invalid_request', message);
