// Refreshes dynamic and external lists in the background: pending ones (a run that could not finish at
// creation), ones due again (src/core/lists/sync.ts: REFRESH_AFTER_SECONDS) and runs that died. Each
// list is claimed by compare-and-set, so overlapping runs still refresh each list once.
import { syncDueLists } from '../core/lists/sync.ts';
import type { Job } from './job.ts';

const LIST_SYNC_INTERVAL_MS = 60 * 1000;
/** Lists refreshed per pass at most; the rest wait for the next pass. */
const LIST_SYNC_BATCH = 20;

export const listSyncJob: Job = {
  name: 'list-sync',
  intervalMs: LIST_SYNC_INTERVAL_MS,
  run: async (em) => ({ ...(await syncDueLists(em, LIST_SYNC_BATCH)) }),
};
