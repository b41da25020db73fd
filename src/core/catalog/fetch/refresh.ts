// The refresh of the titles people follow, watch or list: the provider is asked again for each title due
// (refresh-repository.ts says which), so new seasons and episodes, moved air dates and new images reach
// the catalog, and from there the calendar, up next and the new-episode notifications, which read it.
// - A run takes one batch, least recently refreshed first, and fetches it through the service's fetcher
//   (fetcher.ts): the same claim per title across instances, the same backoff on failure, the same
//   storing through the catalog importer as a first use. A failure leaves the title as it was: the
//   provider's answer replaces a title only once it has been checked and stored whole.
// - A few fetches run at once so one slow answer does not hold the others up; the provider's shared
//   token bucket, not this, decides how fast requests go out.
// - A run stops starting fetches at its deadline (the job's share of its interval) or when the fetcher
//   refuses more (too busy, or closing); what it did not reach is still due for the next run.
// - The backlog (titles still due after the run, those waiting for a retry time left out: what the next
//   run would face) goes to the catalog_refresh_backlog gauge.
import type { EntityManager } from '@mikro-orm/postgresql';
import { catalogRefreshBacklog } from '../../metrics/catalog.ts';
import type { CatalogFetcher, FetchOutcome } from './fetcher.ts';
import type { ProviderRef } from './provider.ts';
import { countDue, dueTitles } from './refresh-repository.ts';

/** Fetches under way at once in one run. */
const CONCURRENCY = 4;

/**
 * What a run did: titles refreshed, or not (missing upstream, an answer that did not fit, a provider
 * that failed: each tried again after its retry time), skipped (fetched elsewhere meanwhile, or not
 * started: the fetcher was busy or the run's deadline came), and the titles still due after it.
 */
export type RefreshSummary = { refreshed: number; missing: number; invalid: number; failed: number; skipped: number; backlog: number };
type Tally = Omit<RefreshSummary, 'backlog'>;

export type RefreshOptions = {
  /** Titles one run takes at most. */
  batch: number;
  /** No fetch starts after this time (epoch ms). */
  deadline?: number;
  /** Called after each title's fetch (progress). */
  onFetched?: (ref: ProviderRef, outcome: FetchOutcome) => void;
};

const emptyTally = (): Tally => ({ refreshed: 0, missing: 0, invalid: 0, failed: 0, skipped: 0 });

function count(tally: Tally, outcome: FetchOutcome): void {
  if (outcome === 'stored') tally.refreshed++;
  else if (outcome === 'missing' || outcome === 'invalid' || outcome === 'failed') tally[outcome]++;
  else tally.skipped++;
}

/**
 * Fetches `refs` a few at a time; `force` skips a retry wait. Stops starting fetches at `deadline` or
 * once the fetcher answers busy; the refs not started count as skipped.
 */
export async function fetchEach(
  fetcher: CatalogFetcher,
  refs: ProviderRef[],
  opts: { force?: boolean; deadline?: number | undefined; onFetched?: RefreshOptions['onFetched'] } = {},
): Promise<Tally> {
  const tally = emptyTally();
  let next = 0;
  let stop = false;
  const worker = async () => {
    while (!stop && next < refs.length) {
      if (opts.deadline !== undefined && Date.now() >= opts.deadline) break;
      const ref = refs[next++]!;
      const outcome = await fetcher.fetch(ref, 'refresh', opts.force ?? false);
      // Busy: this instance has as many fetches under way as it takes (or it is closing): leave the rest.
      if (outcome === 'busy') stop = true;
      count(tally, outcome);
      opts.onFetched?.(ref, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, refs.length) }, worker));
  tally.skipped += refs.length - next;
  return tally;
}

/** One run: the due titles of one batch refreshed, and the backlog left counted and set. */
export async function refreshDue(em: EntityManager, fetcher: CatalogFetcher, opts: RefreshOptions): Promise<RefreshSummary> {
  const due = await dueTitles(em, opts.batch);
  const tally = await fetchEach(
    fetcher,
    due.map(({ type, movieDbId }) => ({ type, movieDbId })),
    { deadline: opts.deadline, onFetched: opts.onFetched },
  );
  const backlog = await countDue(em);
  catalogRefreshBacklog.set(backlog);
  return { ...tally, backlog };
}

/** How many titles are due now, without refreshing any (what a run would face). */
export function refreshBacklog(em: EntityManager): Promise<number> {
  return countDue(em);
}
