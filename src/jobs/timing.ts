// How long a run may hold its job, and how soon the fleet notices one that holds it too long. Both
// runners use these, so a run that hangs, or whose instance died mid-run, keeps its job from running
// again for a bounded time in either mode:
//
//   expiry (1.25 intervals): a run still going by then is given up on. pg-boss fails it (the worker
//     that runs it does so at once; a dead instance's run is failed by the next supervise pass of any
//     instance) and retries it with the queue's backoff; the in-process runner stops waiting for it.
//   supervise pass (a quarter of the shortest interval, 1 s to 60 s): how often pg-boss looks for
//     runs past their expiry that no live worker will fail.
//   polling (half the interval, 0.5 s to 2 s): how soon a worker fetches what is queued.
//
// So a stuck run blocks its job for at most expiry + supervise pass + polling, which is under two
// intervals for every interval of 4 s or more (every production job runs every minute or slower). pg-boss
// counts in whole seconds, so a 1-second test interval recovers in about 2.5 s.

/** Seconds a run may stay active before it is failed (pg-boss `expireInSeconds`) or abandoned. */
export function expireSeconds(intervalMs: number): number {
  return Math.max(1, Math.floor((intervalMs * 1.25) / 1000));
}

/** Seconds between pg-boss's supervise passes (which fail expired runs of dead instances). */
export function superviseSeconds(intervalsMs: number[]): number {
  if (!intervalsMs.length) return 60;
  return Math.min(60, Math.max(1, Math.floor(Math.min(...intervalsMs) / 4000)));
}

/** Seconds between a worker's fetches. */
export function pollingSeconds(intervalMs: number): number {
  return Math.min(2, Math.max(0.5, intervalMs / 2000));
}

/** The longest a stuck or orphaned run keeps its job from running again, in seconds. */
export function recoverySeconds(intervalMs: number, allIntervalsMs: number[]): number {
  return expireSeconds(intervalMs) + superviseSeconds(allIntervalsMs) + pollingSeconds(intervalMs);
}

/** A job is stalled when its last successful run is older than this many intervals (the alert rule). */
export const STALLED_AFTER_INTERVALS = 3;
