// Playback housekeeping every few minutes: expired Continue Watching entries leave the table (with a
// delete in the change feed; reads already hide them), stream events past the replay window, used or
// expired stream tickets, and old sessions and event receipts. Each delete is idempotent.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sweepStreamEvents } from '../core/events/stream-log.ts';
import { sweepTickets } from '../core/events/tickets.ts';
import { sweepContinueWatching } from '../core/playback/continue-watching.ts';
import { sweepSessions } from '../core/playback/sessions.ts';
import type { Job } from './job.ts';

const PLAYBACK_SWEEP_INTERVAL_MS = 5 * 60 * 1000;

async function sweepWith(em: EntityManager): Promise<Record<string, number>> {
  return {
    continueWatching: await sweepContinueWatching(em.fork()),
    streamEvents: await sweepStreamEvents(em.fork()),
    tickets: await sweepTickets(em.fork()),
    sessions: await sweepSessions(em.fork()),
  };
}

export const playbackSweepJob: Job = { name: 'playback-sweep', intervalMs: PLAYBACK_SWEEP_INTERVAL_MS, run: (em) => sweepWith(em) };
