// The change log's statements shared by its writers and readers: the bulk insert of change records,
// and the pieces of the "settled" predicate the feed, the snapshot and the trophy job read with.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, sql } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { changesWritten } from './written.ts';

/** One change record as it travels to the insert (a JSON array element). */
export type ChangeRecord = { resource: string; resource_id: string; op: 'upsert' | 'delete'; data: Record<string, unknown> | null };

function insertChangesQuery(userId: string, recordsJson: string) {
  return offline
    .insertInto('change_log')
    .columns(['user_id', 'resource', 'resource_id', 'op', 'data'])
    .expression((eb) =>
      eb
        .selectFrom(eb.fn<{ value: ChangeRecord }>('jsonb_array_elements', [eb.cast(eb.val(recordsJson), 'jsonb')]).as('r'))
        .select((eb) => [
          eb.cast(eb.val(userId), 'uuid').as('user_id'),
          eb.ref('r.value', '->>').key('resource').as('resource'),
          eb.ref('r.value', '->>').key('resource_id').as('resource_id'),
          eb.ref('r.value', '->>').key('op').as('op'),
          // A JSON null (a delete) is stored as SQL null.
          eb.fn('nullif', [eb.ref('r.value', '->').key('data'), eb.cast(eb.val('null'), 'jsonb')]).as('data'),
        ]),
    );
}

/** The insert compiled once (compiled-once.ts): nearly every write records changes. */
const insertChangesOnce = compiledOnce(
  (p: { userId: string; json: string }) => insertChangesQuery(p.userId, p.json),
  (p, value) => ({ userId: value(p.userId), json: value(p.json) }),
);

/**
 * Inserts the user's change records in one statement, whatever their number: the records travel as one
 * JSON array parameter (no limit on the number of bound parameters), inserted in array order.
 */
export async function insertChanges(tx: EntityManager, userId: string, records: ChangeRecord[]): Promise<void> {
  await db(tx).executeQuery(insertChangesOnce({ userId, json: JSON.stringify(records) }));
  changesWritten(tx);
}

/** A cursor's xid (text) as an xid8 value. */
export function xid8(xid: string) {
  const eb = expressionBuilder<Tables, never>();
  // raw: Kysely's cast knows no xid8 type (the feed's and the trophy job's positions are xid8).
  return eb.cast<string>(eb.val(xid), sql`xid8`);
}

/**
 * The horizon below which every transaction has ended, pg_snapshot_xmin(pg_current_snapshot()): a row
 * whose xid is below it is settled (no transaction still open can commit a row behind it).
 */
export function settledHorizon() {
  const eb = expressionBuilder<Tables, never>();
  return eb.fn<string>('pg_snapshot_xmin', [eb.fn('pg_current_snapshot')]);
}


/** The one server view the feed's lag is read from (not a table of ours: typed here for the query builder). */
type ServerActivity = { pg_stat_activity: { xact_start: Date | null; backend_xid: string | null } };

/**
 * How long the feed has been held back, in seconds: the age of the oldest transaction with an xid on the
 * whole PostgreSQL server (any database), since the settled horizon cannot pass it; 0 when there is none.
 * Sessions of other roles show no xact_start without pg_read_all_stats (docs/operations.md).
 */
export async function feedHoldSeconds(em: EntityManager): Promise<number> {
  const row = await db(em)
    .withTables<ServerActivity>()
    .selectFrom('pg_stat_activity')
    .select((eb) => [eb.fn.min<Date | null>('xact_start').as('oldest'), eb.fn<Date>('now').as('now')])
    .where('backend_xid', 'is not', null)
    .executeTakeFirst();
  if (!row?.oldest) return 0;
  return Math.max(0, (row.now.getTime() - row.oldest.getTime()) / 1000);
}
