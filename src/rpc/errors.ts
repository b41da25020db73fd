// One translation from anything thrown to an ApiError (core/errors.ts), used by the facade, /trpc and Express.
import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError } from 'zod';
import { ApiError } from '../core/errors.ts';

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  // Retryable for tRPC's subscription link: a live event stream that must be reconnected.
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * An error raised before any procedure runs (body caps, bearer authentication, unknown route) in the
 * shape /trpc answers with, so tRPC clients read it as they read a procedure's error: `data` carries
 * the envelope's fields. A batch link gives the one error to every call of the batch.
 */
export function trpcErrorBody(err: ApiError, requestId: string | null): Record<string, unknown> {
  const code = TRPC_CODE_BY_STATUS[err.status] ?? 'INTERNAL_SERVER_ERROR';
  return {
    error: {
      message: err.message,
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: { code, httpStatus: err.status, ...err.extra, error: err.code, request_id: requestId },
    },
  };
}

/** ApiError -> TRPCError carrying it, so tRPC answers with the right HTTP status. */
export function toTrpcError(err: ApiError): TRPCError {
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[err.status] ?? 'INTERNAL_SERVER_ERROR', message: err.message, cause: err });
}

export function describeZodError(err: ZodError): string {
  return err.issues
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : i.code === 'unrecognized_keys' ? '' : 'input';
      return where ? `${where}: ${i.message}` : i.message;
    })
    .join('; ');
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ZodError) return new ApiError('invalid_request', describeZodError(err));
  if (err instanceof TRPCError) {
    const cause = err.cause;
    if (cause instanceof ApiError) return cause;
    if (cause instanceof ZodError || (cause && (cause as Error).name === 'ZodError')) {
      // A ZodError on input is the client's; on output it is ours (tRPC reports it as a server error).
      if (err.code === 'BAD_REQUEST') return new ApiError('invalid_request', describeZodError(cause as ZodError));
      return new ApiError('server_error', 'The server produced an invalid response');
    }
    switch (err.code) {
      case 'NOT_FOUND':
        return new ApiError('not_found', 'No such route');
      case 'PARSE_ERROR':
      case 'BAD_REQUEST':
        return new ApiError('invalid_request', err.message);
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new ApiError('invalid_request', 'Content-Type must be application/json');
      case 'PAYLOAD_TOO_LARGE':
        return new ApiError('payload_too_large', 'Request body is over the size limit');
      case 'METHOD_NOT_SUPPORTED':
        return new ApiError('not_found', 'No such route');
      default:
        return new ApiError('server_error', 'Temporary server failure');
    }
  }
  return new ApiError('server_error', 'Temporary server failure');
}
