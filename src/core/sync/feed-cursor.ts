// Cursors of the change feed and the snapshot: a position, bound to the query's other parameters (the
// shared cursor format), plus the time it was issued. A cursor stays valid 90 days from its issue;
// every page issues a fresh one, so a client that keeps following the feed never runs out. Change-log
// retention keeps everything a valid cursor can still reach (retention.ts).
import { encodeCursor, decodeCursor, isBigintText, isXid8Text, type CursorParams } from '../paging/cursor.ts';
import { invalidRequest } from '../errors.ts';

export const CURSOR_TTL_MS = 90 * 24 * 60 * 60 * 1000;

/** [xid, id] in the change log: the feed continues after it. */
export type FeedPosition = { xid: string; id: string };
/** The snapshot's bound (its items are as of the changes below that xid) and the last resource id served. */
export type SnapshotPosition = { bound: string; after: string };

type Raw = [string, string, number];
const isRaw = (p: unknown): p is Raw => Array.isArray(p) && p.length === 3 && isXid8Text(p[0]) && typeof p[1] === 'string' && typeof p[2] === 'number';

const RESNAPSHOT =
  'cursor is older than 90 days and can no longer be followed: take a new snapshot (GET /me/sync/snapshot) and follow its changesCursor';

function decode(cursor: string, params: CursorParams, now: Date): Raw {
  const raw = decodeCursor(cursor, params, isRaw);
  if (now.getTime() - raw[2] > CURSOR_TTL_MS) throw invalidRequest(RESNAPSHOT);
  return raw;
}

export function encodeFeedCursor(p: FeedPosition, params: CursorParams, now: Date): string {
  return encodeCursor([p.xid, p.id, now.getTime()], params);
}

export function decodeFeedCursor(cursor: string, params: CursorParams, now: Date): FeedPosition {
  const [xid, id] = decode(cursor, params, now);
  if (!isBigintText(id) || id.startsWith('-')) throw invalidRequest('cursor is not a cursor this service issued');
  return { xid, id };
}

export function encodeSnapshotCursor(p: SnapshotPosition, params: CursorParams, now: Date): string {
  return encodeCursor([p.bound, p.after, now.getTime()], params);
}

export function decodeSnapshotCursor(cursor: string, params: CursorParams, now: Date): SnapshotPosition {
  const [bound, after] = decode(cursor, params, now);
  return { bound, after };
}
