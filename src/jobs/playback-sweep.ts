// Playback housekeeping every few minutes: expired Continue Watching entries leave the table (with a
// delete in the change feed; reads already hide them), stream events past the replay window, used or
// expired stream tickets, and old sessions and event receipts. Each delete is idempotent, so the job
// runs in every instance.
import type { MikroORM } from '@mikro-orm/postgresql';
import { sweepStreamEvents } from '../core/events/stream-log.ts';
import { sweepTickets } from '../core/events/tickets.ts';
import type { Logger } from '../core/log.ts';
import { sweepContinueWatching } from '../core/playback/continue-watching.ts';
import { sweepSessions } from '../core/playback/sessions.ts';

export const PLAYBACK_SWEEP_INTERVAL_MS = 5 * 60 * 1000;

export async function sweepPlayback(orm: MikroORM): Promise<Record<string, number>> {
  return {
    continueWatching: await sweepContinueWatching(orm.em.fork()),
    streamEvents: await sweepStreamEvents(orm.em.fork()),
    tickets: await sweepTickets(orm.em.fork()),
    sessions: await sweepSessions(orm.em.fork()),
  };
}

export function startPlaybackSweep(orm: MikroORM, log: Logger, intervalMs = PLAYBACK_SWEEP_INTERVAL_MS): () => void {
  const run = async () => {
    try {
      const deleted = await sweepPlayback(orm);
      if (Object.values(deleted).some((n) => n > 0)) log.info({ job: 'playback-sweep', deleted }, 'expired playback rows deleted');
    } catch (err) {
      log.error({ job: 'playback-sweep', err }, 'sweep failed');
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
