// Awards trophies every minute by default (TROPHY_INTERVAL_MS): follows change_log from the stored cursor,
// re-evaluates the users whose history, ratings or lists changed, and awards what is due with its
// notification (src/core/trophies/follow.ts). The cursor is compared and moved in the awarding
// transaction, so overlapping runs award each trophy once.
import { followTrophyChanges } from '../core/trophies/follow.ts';
import type { Job } from './job.ts';

/** `intervalMs` 0 turns the job off in this instance. */
export function trophyJob(intervalMs: number): Job {
  return { name: 'trophies', intervalMs, run: async (em) => ({ ...(await followTrophyChanges(em)) }) };
}
