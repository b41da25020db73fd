// Change-log retention. Cursors are valid 90 days, so rows older than that are never needed to follow
// a valid cursor; but the latest row of a live item is the item itself (the snapshot reads it, and a
// feed read from the start replays it), so it is kept for as long as the item lives. Deleted: rows
// older than the retention period that have a newer row for the same item, and old deletes once the
// rows before them are gone.
// The period is a day longer than the cursors' life: a transaction open when a cursor was issued can
// commit rows with an older changed_at (its start) behind that cursor.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { CURSOR_TTL_MS } from './feed-cursor.ts';

export const CHANGE_RETENTION_MS = CURSOR_TTL_MS + 24 * 60 * 60 * 1000;
const BATCH = 5000;

const PRUNE = `
with d as (
  delete from change_log where id in (
    select c.id from change_log c
    where c.changed_at < $1
      and (
        (c.op = 'upsert' and exists (select 1 from change_log n
          where n.user_id = c.user_id and n.resource = c.resource and n.resource_id = c.resource_id and n.id > c.id))
        -- a delete goes once the rows before it are gone, so the item's older upsert never becomes its latest row
        or (c.op = 'delete' and not exists (select 1 from change_log n
          where n.user_id = c.user_id and n.resource = c.resource and n.resource_id = c.resource_id and n.id < c.id)))
    limit $2)
  returning 1)
select count(*)::int as n from d`;

/** Deletes what retention allows, in batches (short transactions); the number of rows deleted. */
export async function pruneChangeLog(em: EntityManager, now: Date): Promise<number> {
  const before = new Date(now.getTime() - CHANGE_RETENTION_MS).toISOString();
  let total = 0;
  for (;;) {
    const [row] = await query<{ n: number }>(em, { text: PRUNE, params: [before, BATCH] });
    total += row?.n ?? 0;
    if (!row?.n) return total;
  }
}
