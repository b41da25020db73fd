// Reading the user's watch history newest first, `(watched_at desc, id desc)`, in keyset pages: a page
// starts strictly after the last entry of the one before, so entries logged meanwhile never shift
// others into a page twice or out of all pages (never OFFSET over user data).
import type { EntityManager } from '@mikro-orm/postgresql';
import { prepared } from '../db/sql.ts';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText, type CursorParams } from '../paging/cursor.ts';
import { toHistoryItem, type HistoryItem } from './history-items.ts';
import { historyPageStatement, type HistoryFilters } from './history-repository.ts';
import type { Kind } from './library-items.ts';

export type HistoryQuery = {
  cursor?: string | undefined;
  limit: number;
  /** Category: `movie` and `show` are non-anime titles, `anime` is anime of either type. */
  type?: Kind | undefined;
  /** Entries watched at or after this time. */
  startAt?: Date | undefined;
  /** Entries watched before this time. */
  endAt?: Date | undefined;
};

export type HistoryPage = { items: HistoryItem[]; nextCursor?: string };

/** Position after an entry: its watched_at to the microsecond, and its id. */
type Position = [string, string];
const isPosition = (p: unknown): p is Position => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

/** The page's filters (the page size and one more row) and the filters its cursor is bound to. */
function pageFilters(q: HistoryQuery): { bound: CursorParams; filters: HistoryFilters } {
  // The cursor is bound to the filters; the page size may change between pages.
  const bound = { type: q.type, startAt: q.startAt?.toISOString(), endAt: q.endAt?.toISOString() };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  return { bound, filters: { type: q.type, startAt: q.startAt, endAt: q.endAt, after, rows: q.limit + 1 } };
}

export async function listHistory(em: EntityManager, userId: string, q: HistoryQuery): Promise<HistoryPage> {
  const { bound, filters } = pageFilters(q);
  // One text per combination of filters (16): a named statement (db/prepared.ts).
  const rows = await prepared(em, historyPageStatement({ userId, filters }));
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(toHistoryItem),
    ...(rows.length > q.limit && last ? { nextCursor: encodeCursor([last.position_at, String(last.id)], bound) } : {}),
  };
}
