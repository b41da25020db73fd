// The statements of the sync states of dynamic and external lists (sync.ts): claiming a list for one run
// (compare-and-set), its outcome, and the lists due.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

/** now() minus `secs` seconds: make_interval's positional arguments are (years, months, weeks, days, hours, mins, secs). */
function secondsAgo(secs: number) {
  const eb = expressionBuilder<Tables, never>();
  return eb(eb.fn<Date>('now'), '-', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(secs)]));
}

/**
 * Claims the list for one run (compare-and-set): a dynamic or external list not being synced, or whose
 * run started over `staleSeconds` ago. What the run needs, with the filters as text to compare later.
 */
export function claimSync(em: EntityManager, listId: string, staleSeconds: number) {
  return db(em)
    .updateTable('list')
    .set((eb) => ({ sync_state: 'syncing', sync_started_at: eb.fn<Date>('now') }))
    .where('id', '=', listId)
    .where('kind', '<>', 'plain')
    .where((eb) => eb.or([eb('sync_state', '<>', 'syncing'), eb('sync_started_at', '<', secondsAgo(staleSeconds))]))
    .returning((eb) => ['kind', 'dynamic_filters', eb.cast<string | null>('dynamic_filters', 'text').as('filters_text'), 'external_source', 'external_url'])
    .executeTakeFirst();
}

/** Still claimed by this run, with the filters it ran with (`filtersText`). */
const stillClaimed = (filtersText: string | null) => {
  const eb = expressionBuilder<Tables, 'list'>();
  return eb.and([eb('sync_state', '=', 'syncing'), eb(eb.cast<string | null>('dynamic_filters', 'text'), 'is not distinct from', filtersText)]);
};

/** Marks the run failed if it is still this run's; whether it did. */
export async function markSyncFailed(tx: EntityManager, listId: string, error: string, filtersText: string | null): Promise<boolean> {
  const row = await db(tx)
    .updateTable('list')
    .set((eb) => ({ sync_state: 'failed', last_sync_error: error, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', listId)
    .where(stillClaimed(filtersText))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Locks the list if it is still this run's; whether it is. */
export async function lockClaimed(tx: EntityManager, listId: string, filtersText: string | null): Promise<boolean> {
  const row = await db(tx).selectFrom('list').select('id').where('id', '=', listId).where(stillClaimed(filtersText)).forUpdate().executeTakeFirst();
  return row !== undefined;
}

export async function markSynced(tx: EntityManager, listId: string): Promise<void> {
  await db(tx)
    .updateTable('list')
    .set((eb) => ({
      sync_state: 'synced',
      last_synced_at: eb.fn<Date>('now'),
      last_sync_error: null,
      last_full_synced_at: eb.case().when('kind', '=', 'dynamic').then(eb.fn<Date>('now')).else(eb.ref('last_full_synced_at')).end(),
    }))
    .where('id', '=', listId)
    .execute();
}

/** Lists to refresh now: pending ones, ones due again (`refreshSeconds`), and runs that died (`staleSeconds`). */
export async function selectDueLists(em: EntityManager, refreshSeconds: number, staleSeconds: number, limit: number): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('list')
    .select('id')
    .where('kind', '<>', 'plain')
    .where((eb) =>
      eb.or([
        eb('sync_state', '=', 'pending'),
        eb.and([eb('sync_state', 'in', ['synced', 'failed']), eb.or([eb('sync_started_at', 'is', null), eb('sync_started_at', '<', secondsAgo(refreshSeconds))])]),
        eb.and([eb('sync_state', '=', 'syncing'), eb('sync_started_at', '<', secondsAgo(staleSeconds))]),
      ]),
    )
    .orderBy('sync_started_at', (ob) => ob.asc().nullsFirst())
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => String(r.id));
}
