// Change-log retention. Cursors are valid 90 days, so rows older than that are never needed to follow
// a valid cursor; but the latest row of a live item is the item itself (the snapshot reads it, and a
// feed read from the start replays it), so it is kept for as long as the item lives. Deleted: rows
// older than the retention period that have a newer row for the same item, and old deletes together
// with the rows before them.
// The period is a day longer than the cursors' life: a transaction open when a cursor was issued can
// commit rows with an older changed_at (its start) behind that cursor.
//
// The sweep walks the log in id order (the primary key), a step of BATCH rows at a time, and stops at
// the first step that reaches rows younger than the period. Ids follow time closely enough: a row of a
// transaction that started long ago can sit after younger rows, and it waits for the next sweep. So no
// index on changed_at is needed (every write to the log would pay for its upkeep), and no step reads
// again the rows an earlier step kept.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { CURSOR_TTL_MS } from './feed-cursor.ts';

export const CHANGE_RETENTION_MS = CURSOR_TTL_MS + 24 * 60 * 60 * 1000;
const BATCH = 5000;

// $1 the period's start, $2 the step size, $3 the last id of the previous step. A delete goes when
// every row before it is old enough to go too (each is superseded by the delete, so they all go in this
// statement or went in an earlier step): the item's older upsert never becomes its latest row.
const PRUNE_STEP = `
with step as (
  select c.id, c.user_id, c.resource, c.resource_id, c.op, c.changed_at from change_log c
  where c.id > $3::bigint order by c.id limit $2
), d as (
  delete from change_log where id in (
    select s.id from step s
    where s.changed_at < $1
      and (
        (s.op = 'upsert' and exists (select 1 from change_log n
          where n.user_id = s.user_id and n.resource = s.resource and n.resource_id = s.resource_id and n.id > s.id))
        or (s.op = 'delete' and not exists (select 1 from change_log n
          where n.user_id = s.user_id and n.resource = s.resource and n.resource_id = s.resource_id and n.id < s.id and n.changed_at >= $1))))
  returning 1)
select (select count(*)::int from d) as deleted, (select max(id)::text from step) as last,
  coalesce((select bool_or(changed_at >= $1) from step), true) as done`;

/** Deletes what retention allows, in steps of `step` rows (short statements); the number of rows deleted. */
export async function pruneChangeLog(em: EntityManager, now: Date, step = BATCH): Promise<number> {
  const before = new Date(now.getTime() - CHANGE_RETENTION_MS).toISOString();
  let total = 0;
  let after = '0';
  for (;;) {
    const [row] = await query<{ deleted: number; last: string | null; done: boolean }>(em, { text: PRUNE_STEP, params: [before, step, after] });
    total += row?.deleted ?? 0;
    if (!row || row.done || row.last === null) return total;
    after = row.last;
  }
}
