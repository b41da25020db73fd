// The platform's error envelope, asserted exactly: the status, the machine code, and nothing but
// {error, message, request_id} (plus what `extra` names), with request_id the X-Service-Request-Id header.
import { expect } from 'vitest';
import type { Answer } from './http.ts';

export function expectError(res: Answer, status: number, code: string, extra: Record<string, unknown> = {}): void {
  expect({ status: res.status, error: res.body.error }).toEqual({ status, error: code });
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'request_id', ...Object.keys(extra)].sort());
  expect(typeof res.body.message).toBe('string');
  expect(res.body.request_id).toMatch(/^req_/);
  expect(res.body.request_id).toBe(res.headers.get('x-service-request-id'));
  expect(res.body).toMatchObject(extra);
}
