// The snapshot: one resource's current items, as a backfill before following the feed.
// Every module records the full current record in each change, so the latest change of an item IS the
// item: the snapshot reads the compacted log (the latest row per item, by id: writes of one item are
// serialised by its row lock, so id order is their commit order), keeping upserts.
// Pages share a bound fixed on the first page, the oldest transaction then still open: the items are
// as of every change below it, and `changesCursor` starts the feed exactly at it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { feedParams } from './changes.ts';
import { decodeSnapshotCursor, encodeFeedCursor, encodeSnapshotCursor } from './feed-cursor.ts';
import { snapshotBound, snapshotItems } from './repository.ts';

export type SnapshotPage = { items: Record<string, unknown>[]; nextCursor: string | null; changesCursor: string };

export async function readSnapshot(
  em: EntityManager,
  input: { userId: string; resource: ChangeResource; cursor?: string | undefined; limit: number; now: Date },
): Promise<SnapshotPage> {
  const params = { resource: input.resource };
  let pos;
  if (input.cursor) pos = decodeSnapshotCursor(input.cursor, params, input.now);
  else pos = { bound: await snapshotBound(em), after: '' };
  const rows = await snapshotItems(em, input.userId, input.resource, pos, input.limit + 1);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => r.data),
    nextCursor: rows.length > input.limit && last ? encodeSnapshotCursor({ bound: pos.bound, after: last.resource_id }, params, input.now) : null,
    changesCursor: encodeFeedCursor({ xid: pos.bound, id: '0' }, feedParams([input.resource]), input.now),
  };
}
