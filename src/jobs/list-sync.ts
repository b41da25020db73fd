// Refreshes dynamic and external lists in the background: pending ones (a run that could not finish at
// creation), ones due again (src/core/lists/sync.ts: REFRESH_AFTER_SECONDS) and runs that died. Runs in
// every instance; each list is claimed by compare-and-set, so a fleet refreshes each list once.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { syncDueLists } from '../core/lists/sync.ts';

export const LIST_SYNC_INTERVAL_MS = 60 * 1000;
/** Lists refreshed per pass at most; the rest wait for the next pass. */
export const LIST_SYNC_BATCH = 20;

export function startListSync(orm: MikroORM, log: Logger, intervalMs = LIST_SYNC_INTERVAL_MS): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const counts = await syncDueLists(orm.em.fork(), LIST_SYNC_BATCH);
      if (counts.synced || counts.failed) log.info({ job: 'list-sync', ...counts }, 'lists refreshed');
    } catch (err) {
      log.error({ job: 'list-sync', err }, 'list sync failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
