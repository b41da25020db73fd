// The replay log of server-sent events: every event is written in the same transaction as the change it
// announces (so it exists exactly when the change does), then published on the bus after commit. A
// client reconnecting with Last-Event-ID gets the events after that id from here, for REPLAY_WINDOW.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import type { EventBus, StreamEvent } from './bus.ts';
import { eventBusOf } from './registry.ts';

/** How long events stay replayable after they happen. */
export const REPLAY_WINDOW_MS = 10 * 60 * 1000;
/** At most this many events are replayed on one reconnect (the oldest first). */
export const REPLAY_MAX = 1000;

export type NewStreamEvent = { name: string; data: Record<string, unknown> };

type Row = { id: string; user_id: string; name: string; data: Record<string, unknown> };

const toEvent = (r: Row): StreamEvent => ({ id: String(r.id), userId: r.user_id, name: r.name, data: r.data });

/** Appends events of one user in `tx` (inside the write's transaction); returns them with their ids. */
export async function appendStreamEvents(tx: EntityManager, userId: string, events: NewStreamEvent[]): Promise<StreamEvent[]> {
  if (events.length === 0) return [];
  const rows = await query<Row>(tx, {
    text: `insert into stream_event (user_id, name, data)
      select $1::uuid, r.name, r.data from json_to_recordset($2::json) as r(idx integer, name text, data jsonb)
      order by r.idx
      returning id, user_id, name, data`,
    params: [userId, JSON.stringify(events.map((e, idx) => ({ idx, ...e })))],
  });
  return rows.map(toEvent).sort((a, b) => Number(a.id) - Number(b.id));
}

/** Publishes committed events on the bus of `em`'s service, if it has one. */
export async function publishStreamEvents(em: EntityManager, events: StreamEvent[], bus: EventBus | undefined = eventBusOf(em)): Promise<void> {
  if (bus && events.length) await bus.publish(events);
}

/** The user's events after `afterId` still inside the replay window, oldest first. */
export async function replayStreamEvents(em: EntityManager, userId: string, afterId: string): Promise<StreamEvent[]> {
  const rows = await query<Row>(em, {
    text: `select id, user_id, name, data from stream_event
      where user_id = $1 and id > $2 and created_at > now() - make_interval(secs => $3)
      order by id limit $4`,
    params: [userId, afterId, REPLAY_WINDOW_MS / 1000, REPLAY_MAX],
  });
  return rows.map(toEvent);
}

/** Deletes events older than the replay window; returns how many. */
export async function sweepStreamEvents(em: EntityManager): Promise<number> {
  const rows = await query<{ n: number }>(em, {
    text: `with d as (delete from stream_event where created_at < now() - make_interval(secs => $1) returning 1) select count(*)::int as n from d`,
    params: [REPLAY_WINDOW_MS / 1000],
  });
  return rows[0]?.n ?? 0;
}
