// The snapshot: one resource's current items, as a backfill before following the feed.
// Every module records the full current record in each change, so the latest change of an item IS the
// item: the snapshot reads the compacted log (the latest row per item, by id: writes of one item are
// serialised by its row lock, so id order is their commit order), keeping upserts.
// Pages share a bound fixed on the first page, the oldest transaction then still open: the items are
// as of every change below it, and `changesCursor` starts the feed exactly at it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { query } from '../db/sql.ts';
import { feedParams } from './changes.ts';
import { decodeSnapshotCursor, encodeFeedCursor, encodeSnapshotCursor } from './feed-cursor.ts';

export type SnapshotPage = { items: Record<string, unknown>[]; nextCursor: string | null; changesCursor: string };

const READ_SNAPSHOT = `
select l.resource_id, l.data from (
  select distinct on (c.resource_id) c.resource_id, c.op, c.data
  from change_log c
  where c.user_id = $1 and c.resource = $2 and c.resource_id > $3 and c.xid < $4::xid8
  order by c.resource_id, c.id desc
) l
where l.op = 'upsert'
limit $5`;

export async function readSnapshot(
  em: EntityManager,
  input: { userId: string; resource: ChangeResource; cursor?: string | undefined; limit: number; now: Date },
): Promise<SnapshotPage> {
  const params = { resource: input.resource };
  let pos;
  if (input.cursor) pos = decodeSnapshotCursor(input.cursor, params, input.now);
  else {
    const [row] = await query<{ bound: string }>(em, { text: `select pg_snapshot_xmin(pg_current_snapshot())::text as bound`, params: [] });
    pos = { bound: row!.bound, after: '' };
  }
  const rows = await query<{ resource_id: string; data: Record<string, unknown> }>(em, {
    text: READ_SNAPSHOT,
    params: [input.userId, input.resource, pos.after, pos.bound, input.limit + 1],
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => r.data),
    nextCursor: rows.length > input.limit && last ? encodeSnapshotCursor({ bound: pos.bound, after: last.resource_id }, params, input.now) : null,
    changesCursor: encodeFeedCursor({ xid: pos.bound, id: '0' }, feedParams([input.resource]), input.now),
  };
}
