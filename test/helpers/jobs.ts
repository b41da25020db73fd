// One job alone on an in-process timer, or one run of it, for tests that drive a job themselves (a short
// interval, a clock of their own) instead of waiting for the app's schedule.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../src/core/log.ts';
import { startInProcess } from '../../src/jobs/in-process.ts';
import type { Job } from '../../src/jobs/job.ts';
import { playbackSweepJob } from '../../src/jobs/playback-sweep.ts';
import { syncSweepJob } from '../../src/jobs/sync-sweep.ts';
import { trophyJob } from '../../src/jobs/trophies.ts';

function startAlone(job: Job, orm: MikroORM, log: Logger, clock?: () => Date): () => void {
  const running = startInProcess([job], orm, log, clock ? { clock } : {});
  return () => void running.stop();
}

/** The sync sweep every `intervalMs`, with the caller's clock (tests that move time). */
export function startSyncSweep(orm: MikroORM, log: Logger, opts: { intervalMs?: number; clock?: () => Date } = {}): () => void {
  return startAlone({ ...syncSweepJob, intervalMs: opts.intervalMs ?? syncSweepJob.intervalMs }, orm, log, opts.clock);
}

/** The trophy job every `intervalMs` (0: off, as TROPHY_INTERVAL_MS=0 makes it). */
export function startTrophyJob(orm: MikroORM, log: Logger, intervalMs: number): () => void {
  return startAlone(trophyJob(intervalMs), orm, log);
}

/** One run of the playback sweep, now. */
export function sweepPlayback(orm: MikroORM): Promise<Record<string, number>> {
  return playbackSweepJob.run(orm.em, new Date());
}
