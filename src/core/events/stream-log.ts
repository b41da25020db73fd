// The replay log of server-sent events: every event is written in the same transaction as the change it
// announces (so it exists exactly when the change does), then published on the bus after commit. A
// client reconnecting with Last-Event-ID gets the events after that id from here, for REPLAY_WINDOW.
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterCommit, beforeCommit } from '../db/transaction.ts';
import type { EventBus, StreamEvent } from './bus.ts';
import { eventBusOf } from './registry.ts';
import { deleteOldStreamEvents, insertStreamEvents, latestStreamEventId, lockUserStream, selectStreamEventsAfter } from './repository.ts';

/** How long events stay replayable after they happen. */
export const REPLAY_WINDOW_MS = 10 * 60 * 1000;
/** At most this many events are replayed on one reconnect (the oldest first). */
const REPLAY_MAX = 1000;

export type NewStreamEvent = { name: string; data: Record<string, unknown> };

type Row = Awaited<ReturnType<typeof selectStreamEventsAfter>>[number];
const toEvent = (r: Row, prev: string | null): StreamEvent => ({ id: String(r.id), prev, userId: r.user_id, name: r.name, data: r.data });

/**
 * Appends events of one user in `tx` (inside the write's transaction); returns them with their ids, each
 * naming the user's event before it (`prev`), so a stream that receives it knows whether it missed one.
 */
export async function appendStreamEvents(tx: EntityManager, userId: string, events: NewStreamEvent[]): Promise<StreamEvent[]> {
  if (events.length === 0) return [];
  await lockUserStream(tx, userId);
  return appendLocked(tx, userId, events);
}

/**
 * Appends the events `make` makes just before `tx` commits, once per `key` and user in the transaction,
 * and publishes them once it has committed. They are made under the user's log lock, so a figure they
 * carry (a count) is read after every earlier event of the user committed: the last event a stream
 * sends carries the figure as it stands. For writes that announce a state rather than a step (however
 * many notifications one transaction records, one count).
 */
export function appendOnCommit(tx: EntityManager, userId: string, key: string, make: (tx: EntityManager) => Promise<NewStreamEvent[]>): void {
  beforeCommit(tx, `stream_event:${userId}:${key}`, async (t) => {
    await lockUserStream(t, userId);
    const events = await appendLocked(t, userId, await make(t));
    afterCommit(t, () => publishStreamEvents(t, events));
  });
}

/** Appends under the user's log lock (held by the caller). */
async function appendLocked(tx: EntityManager, userId: string, events: NewStreamEvent[]): Promise<StreamEvent[]> {
  if (events.length === 0) return [];
  const rows = (await insertStreamEvents(tx, userId, events)).sort((a, b) => Number(a.id) - Number(b.id));
  let prev = rows[0]?.before_id == null ? null : String(rows[0].before_id);
  return rows.map((r) => {
    const e = toEvent(r, prev);
    prev = e.id;
    return e;
  });
}

/** Where a new stream starts: the user's newest event now (it streams what comes after). */
export function streamStart(em: EntityManager, userId: string): Promise<string | null> {
  return latestStreamEventId(em, userId);
}

/** Publishes committed events on the bus of `em`'s service, if it has one. */
export async function publishStreamEvents(em: EntityManager, events: StreamEvent[], bus: EventBus | undefined = eventBusOf(em)): Promise<void> {
  if (bus && events.length) await bus.publish(events);
}

/** The user's events after `afterId` still inside the replay window, oldest first. */
export async function replayStreamEvents(em: EntityManager, userId: string, afterId: string): Promise<StreamEvent[]> {
  const rows = await selectStreamEventsAfter(em, userId, afterId, REPLAY_WINDOW_MS / 1000, REPLAY_MAX);
  // The log is read in order: each event's predecessor is the one before it (the first's is `afterId`).
  let prev: string | null = afterId;
  return rows.map((r) => {
    const e = toEvent(r, prev);
    prev = e.id;
    return e;
  });
}

/** Deletes events older than the replay window; returns how many. */
export function sweepStreamEvents(em: EntityManager): Promise<number> {
  return deleteOldStreamEvents(em, REPLAY_WINDOW_MS / 1000);
}
