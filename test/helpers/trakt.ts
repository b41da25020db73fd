// Requests to the Trakt-compatible facade as Trakt's clients send them: `trakt-api-key` (the app's
// client_id), `trakt-api-version: 2`, a bearer token when given, JSON bodies.
import type { TestApp } from './app.ts';
import { call, type Answer } from './http.ts';
import type { Member } from './seed.ts';

/** One Trakt request to `/trakt{path}`; `who` gives the token and the key (its app's client_id). */
export function trakt(
  app: Pick<TestApp, 'url'>,
  who: Pick<Member, 'token' | 'clientId'> | { clientId: string; token?: null },
  method: string,
  pathAndQuery: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return call(app, `/trakt${pathAndQuery}`, {
    method,
    token: who.token ?? null,
    body,
    headers: { 'trakt-api-key': who.clientId, 'trakt-api-version': '2', ...headers },
  });
}

/** The X-Pagination headers of an answer, as numbers. */
export function pagination(a: Answer): { page: number; limit: number; pageCount: number; itemCount: number } {
  const n = (h: string) => Number(a.headers.get(`x-pagination-${h}`));
  return { page: n('page'), limit: n('limit'), pageCount: n('page-count'), itemCount: n('item-count') };
}
