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
import { CURSOR_TTL_MS } from './feed-cursor.ts';
import { pruneChangeLogStep } from './repository.ts';

const CHANGE_RETENTION_MS = CURSOR_TTL_MS + 24 * 60 * 60 * 1000;
const BATCH = 5000;

/** Deletes what retention allows, in steps of `step` rows (short statements); the number of rows deleted. */
export async function pruneChangeLog(em: EntityManager, now: Date, step = BATCH): Promise<number> {
  const before = new Date(now.getTime() - CHANGE_RETENTION_MS);
  let total = 0;
  let after = '0';
  for (;;) {
    const row = await pruneChangeLogStep(em, before, step, after);
    total += row.deleted ?? 0;
    if (row.done || row.last === null) return total;
    after = row.last;
  }
}
