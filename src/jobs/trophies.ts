// Awards trophies every minute by default (TROPHY_INTERVAL_MS): follows change_log from the stored cursor,
// re-evaluates the users whose history, ratings or lists changed, and awards what is due with its
// notification (src/core/trophies/follow.ts). The cursor is compared and moved in the awarding
// transaction, so overlapping runs award each trophy once.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { followTrophyChanges } from '../core/trophies/follow.ts';
import { startInProcess } from './in-process.ts';
import type { Job } from './job.ts';

/** `intervalMs` 0 turns the job off in this instance. */
export function trophyJob(intervalMs: number): Job {
  return { name: 'trophies', intervalMs, run: async (em) => ({ ...(await followTrophyChanges(em)) }) };
}

/** The job alone on an in-process timer: for tests. */
export function startTrophyJob(orm: MikroORM, log: Logger, intervalMs: number): () => void {
  const running = startInProcess([trophyJob(intervalMs)], orm, log);
  return () => void running.stop();
}
