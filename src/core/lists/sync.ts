// Refreshing dynamic and external lists, and the states of `dynamicListSyncState`:
//   pending  -- created, filters changed, or due again: waiting for the job
//   syncing  -- claimed by one run (compare-and-set, so across a fleet each list refreshes once)
//   synced   -- items replaced; lastSyncedAt (and for dynamic lists dynamicListLastFullSyncedAt) set,
//               lastSyncError null
//   failed   -- the refresh threw; lastSyncError says why; items and lastSyncedAt are left as they were
// pending -> syncing -> synced | failed; synced | failed -> syncing when due again (REFRESH_AFTER);
// a run that died in `syncing` is taken over after STALE_SYNC. A filter change while a run is under way
// resets the state to pending and that run's result is dropped.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitles } from '../catalog/fetch/registry.ts';
import { transaction } from '../db/transaction.ts';
import { recordListWrite } from './changes.ts';
import { dynamicTitleIds } from './dynamic.ts';
import { externalSource } from './external.ts';
import { replaceItems } from './items.ts';
import { claimSync, lockClaimed, markSynced, markSyncFailed, selectDueLists } from './sync-repository.ts';
import { dynamicFilters } from './schemas.ts';

const REFRESH_AFTER_SECONDS = 6 * 60 * 60;
const STALE_SYNC_SECONDS = 10 * 60;
/** How long a refresh waits for the titles of an external list the catalog lacks (fetched when a provider is configured). */
const TITLE_FETCH_WAIT_MS = 30_000;

type Claimed = NonNullable<Awaited<ReturnType<typeof claimSync>>>;

export type SyncOutcome = 'synced' | 'failed' | 'skipped';

/** Refreshes one list now, unless another run holds it. */
export async function syncList(em: EntityManager, listId: string): Promise<SyncOutcome> {
  const claimed = await claimSync(em, listId, STALE_SYNC_SECONDS);
  if (!claimed) return 'skipped';
  let titleIds: string[];
  try {
    titleIds = await computeTitles(em, claimed);
  } catch (err) {
    await transaction(em, async (tx) => {
      if (await markSyncFailed(tx, listId, (err as Error).message.slice(0, 1000), claimed.filters_text)) await recordListWrite(tx, listId);
    });
    return 'failed';
  }
  return transaction(em, async (tx) => {
    // Still ours, with the filters it ran with (a change meanwhile made it pending: drop this result).
    if (!(await lockClaimed(tx, listId, claimed.filters_text))) return 'skipped';
    const { added, removed } = await replaceItems(tx, listId, titleIds);
    await markSynced(tx, listId);
    await recordListWrite(tx, listId, { upsertedItems: added, deletedItems: removed });
    return 'synced';
  });
}

async function computeTitles(em: EntityManager, list: Claimed): Promise<string[]> {
  if (list.kind === 'dynamic') return dynamicTitleIds(em, dynamicFilters.parse(list.dynamic_filters));
  const source = externalSource(list.external_source ?? '');
  if (!source) throw new Error(`unknown external source: ${list.external_source}`);
  const refs = await source.read(list.external_url ?? '');
  // Outside the refresh's transaction: titles the catalog lacks may be fetched from the metadata provider.
  const resolved = await resolveOrFetchTitles(em, refs, { waitMs: TITLE_FETCH_WAIT_MS });
  return resolved.flatMap((t) => (t ? [t.id] : []));
}

/** Lists the job should refresh now: pending ones, ones due again, and runs that died. */
export async function dueLists(em: EntityManager, limit: number): Promise<string[]> {
  return selectDueLists(em, REFRESH_AFTER_SECONDS, STALE_SYNC_SECONDS, limit);
}

/** One pass of the list-sync job: refreshes up to `limit` due lists, one at a time. */
export async function syncDueLists(em: EntityManager, limit: number): Promise<Record<SyncOutcome, number>> {
  const counts: Record<SyncOutcome, number> = { synced: 0, failed: 0, skipped: 0 };
  for (const id of await dueLists(em, limit)) counts[await syncList(em.fork(), id)]++;
  return counts;
}
