// Trakt's pagination: `page` (from 1) and `limit` in the query, and the answer's X-Pagination-Page,
// -Limit, -Page-Count and -Item-Count headers. Values out of range are clamped, as Trakt does, not refused.
import { invalidRequest } from '../core/errors.ts';

export type Page = { page: number; limit: number; offset: number };

const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

function positive(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,9}$/.test(text)) throw invalidRequest(`${name} must be a positive integer`);
  return Math.max(1, Number(text));
}

/** The page a query asks for (`defaultLimit` when it names none; at most `maxLimit` items). */
export function pageOf(query: Record<string, string | undefined>, defaultLimit = DEFAULT_LIMIT, maxLimit = MAX_LIMIT): Page {
  const page = positive(query.page, 'page') ?? 1;
  const limit = Math.min(positive(query.limit, 'limit') ?? defaultLimit, maxLimit);
  return { page, limit, offset: (page - 1) * limit };
}

/** Whether the query names a page at all (routes whose pagination is optional answer everything otherwise). */
export const asksForPage = (query: Record<string, string | undefined>): boolean => query.page !== undefined || query.limit !== undefined;

/** The X-Pagination headers of a page of `itemCount` items in all. */
export function paginationHeaders(p: Page, itemCount: number): Record<string, string> {
  return {
    'X-Pagination-Page': String(p.page),
    'X-Pagination-Limit': String(p.limit),
    'X-Pagination-Page-Count': String(Math.max(1, Math.ceil(itemCount / p.limit))),
    'X-Pagination-Item-Count': String(itemCount),
  };
}
