// Runs the users' imports (src/core/import/run.ts) every few seconds: each tick takes queued runs, and
// runs given back or left by a dead instance, writing for up to half the interval, so a tick ends well
// before its expiry (timing.ts) and a large file goes on over several ticks, on whichever instance takes
// them. A lease per run (compare-and-set) keeps overlapping ticks from writing the same run.
import type { Importers } from '../core/import/importers.ts';
import type { Logger } from '../core/log.ts';
import { advanceImports } from '../core/import/run.ts';
import type { Job } from './job.ts';

/** `intervalMs` 0 turns the job off in this instance (IMPORT_INTERVAL_MS). `importers`: default the real readers. */
export function importJob(intervalMs: number, opts: { log?: Logger | undefined; importers?: Importers | undefined } = {}): Job {
  return { name: 'imports', intervalMs, run: async (em) => ({ ...(await advanceImports(em, intervalMs / 2, opts)) }) };
}
