// Refreshes the titles people follow, watch or list from the metadata provider every
// CATALOG_REFRESH_INTERVAL_MS (src/core/catalog/fetch/refresh.ts), one batch (CATALOG_REFRESH_BATCH) a run,
// so new seasons and episodes reach the calendar, up next and the new-episodes job. Without a provider key
// no fetcher is attached to the service and a run does nothing. A run starts no fetch after half its
// interval, so it ends well before its expiry (timing.ts); overlapping runs of several instances share
// each title's fetch through its claim, so a title is fetched once however many runs pick it.
import { catalogFetcherOf } from '../core/catalog/fetch/registry.ts';
import { refreshDue } from '../core/catalog/fetch/refresh.ts';
import type { Job } from './job.ts';

/** `intervalMs` 0 turns the job off in this instance. */
export function catalogRefreshJob(intervalMs: number, batch: number): Job {
  return {
    name: 'catalog-refresh',
    intervalMs,
    run: async (em) => {
      const fetcher = catalogFetcherOf(em);
      if (!fetcher) return {};
      const deadline = intervalMs > 0 ? Date.now() + intervalMs / 2 : undefined;
      return { ...(await refreshDue(em, fetcher, { batch, deadline })) };
    },
  };
}
