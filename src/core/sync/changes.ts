// The change feed: a user's changes in (xid, id) order after the cursor, only those of
// transactions older than every transaction still open (xid below the snapshot's xmin). A transaction
// that commits late therefore never lands behind a cursor already handed out: nothing is skipped.
// Delivery is at-least-once; clients apply changes idempotently keyed on (resource, resourceId). Each
// change is served with the item's latest settled state (repository.ts, changesPage, says why and how).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { decodeFeedCursor, encodeFeedCursor, type FeedPosition } from './feed-cursor.ts';
import { changesPage } from './repository.ts';

type Change = { resource: string; resourceId: string; op: 'upsert' | 'delete'; changedAt: string; data: Record<string, unknown> | null };

export type ChangesPage = { changes: Change[]; nextCursor: string; hasMore: boolean };

/** The start of retained history (a first call without a cursor). */
const FEED_START: FeedPosition = { xid: '0', id: '0' };

/** The cursor binds the exact resource list: following it with other resources is a 400. */
export const feedParams = (resources: readonly ChangeResource[]) => ({ resources: [...resources].sort() });

export async function readChanges(
  em: EntityManager,
  input: { userId: string; resources: readonly ChangeResource[]; cursor?: string | undefined; limit: number; now: Date },
): Promise<ChangesPage> {
  const params = feedParams(input.resources);
  const from = input.cursor ? decodeFeedCursor(input.cursor, params, input.now) : FEED_START;
  const rows = await changesPage(em, input.userId, from, params.resources, input.limit + 1);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    changes: page.map((r) => ({ resource: r.resource, resourceId: r.resource_id, op: r.op, changedAt: new Date(r.changed_at).toISOString(), data: r.data })),
    nextCursor: encodeFeedCursor(last ? { xid: last.xid, id: last.id } : from, params, input.now),
    hasMore: rows.length > input.limit,
  };
}
