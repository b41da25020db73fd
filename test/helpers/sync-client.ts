// Calls of the sync API for the sync tests: bulk writes with an Idempotency-Key, and a reader that
// follows the change feed's nextCursor.
import { randomUUID } from 'node:crypto';
import { query } from '../../src/core/db/sql.ts';
import type { TestApp } from './app.ts';
import type { Answer } from './http.ts';
import { platform } from './seed.ts';
import { until } from './wait.ts';

export const newKey = () => `key-${randomUUID()}`;

export function bulk(app: Pick<TestApp, 'url'>, token: string, resource: string, items: unknown[], key: string | null = newKey(), headers: Record<string, string> = {}): Promise<Answer> {
  return platform(app, token, 'POST', `/sync/${resource}`, { items }, { ...(key === null ? {} : { 'idempotency-key': key }), ...headers });
}

export type FeedChange = { resource: string; resourceId: string; op: string; changedAt: string; data: Record<string, unknown> | null };

/** Follows the feed from `cursor` until hasMore is false; the changes read and the cursor to go on with. */
export async function readFeed(app: TestApp, token: string, query: { cursor?: string; resources?: string; limit?: number } = {}): Promise<{ changes: FeedChange[]; cursor: string }> {
  const changes: FeedChange[] = [];
  let cursor = query.cursor;
  for (;;) {
    const qs = new URLSearchParams({ limit: String(query.limit ?? 1000), ...(cursor ? { cursor } : {}), ...(query.resources ? { resources: query.resources } : {}) });
    const res = await platform(app, token, 'GET', `/me/sync/changes?${qs}`);
    if (res.status !== 200) throw new Error(`feed answered ${res.status}: ${JSON.stringify(res.body)}`);
    changes.push(...(res.body.changes as FeedChange[]));
    cursor = res.body.nextCursor as string;
    if (!res.body.hasMore) return { changes, cursor };
  }
}

/**
 * Waits until every change of the user is below the feed's horizon. Transaction ids are cluster-wide:
 * on a PostgreSQL server shared with other test files, one of their open writing transactions holds
 * the horizon back (the feed then delivers later, never skips), so tests wait before reading.
 */
export function settled(app: TestApp, userId: string, timeoutMs = 30_000): Promise<void> {
  return until('the changes to settle', async () => {
    const [row] = await query<{ pending: boolean }>(app.db.orm.em.fork(), {
      text: `select exists (select 1 from change_log where user_id = $1 and xid >= pg_snapshot_xmin(pg_current_snapshot())) as pending`,
      params: [userId],
    });
    return !row?.pending;
  }, timeoutMs, 50);
}
