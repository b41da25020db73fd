// The statements of the server-sent events: stream tickets and the replay log (stream_event).
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdLocks } from '../db/advisory-lock.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { recordset } from '../db/recordset.ts';
import { db } from '../db/query-builder.ts';
import { nowShifted } from '../db/now.ts';

// ---- tickets

export type TicketWrite = { ticketHash: string; userId: string; clientId: string; scopes: string; official: boolean; tokenDigest: string; tokenKey: string; ttlSeconds: number };

export async function insertTicket(em: EntityManager, t: TicketWrite): Promise<void> {
  await db(em)
    .insertInto('stream_ticket')
    .values({
      ticket_hash: t.ticketHash, user_id: t.userId, client_id: t.clientId, scopes: t.scopes, official: t.official, token_digest: t.tokenDigest, token_key: t.tokenKey,
      expires_at: nowShifted('+', t.ttlSeconds),
    })
    .execute();
}

/** Marks the ticket used if it is unused and unexpired (compare-and-set); returns it then. */
export function useTicket(em: EntityManager, ticketHash: string) {
  return db(em)
    .updateTable('stream_ticket')
    .set((eb) => ({ used_at: eb.fn<Date>('now') }))
    .where('ticket_hash', '=', ticketHash)
    .where('used_at', 'is', null)
    .where((eb) => eb('expires_at', '>', eb.fn<Date>('now')))
    .returning(['user_id', 'client_id', 'scopes', 'official', 'token_digest', 'token_key'])
    .executeTakeFirst();
}

/** Deletes tickets past their lifetime; returns how many. */
export async function deleteExpiredTickets(em: EntityManager): Promise<number> {
  const row = await db(em)
    .with('d', (qc) => qc.deleteFrom('stream_ticket').where((eb) => eb('expires_at', '<', eb.fn<Date>('now'))).returning('ticket_hash'))
    .selectFrom('d')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirst();
  return row?.n ?? 0;
}

// ---- replay log

/**
 * Takes the transaction-scoped lock of the user's replay log: appends of one user commit in id order,
 * so when an event is visible every earlier event of the user is too (the chain of `prev` ids holds).
 */
export async function lockUserStream(tx: EntityManager, userId: string): Promise<void> {
  await holdLocks(tx, [`stream_event:${userId}`]);
}

/** The id of the user's newest event in the log, or null when there is none. */
export async function latestStreamEventId(em: EntityManager, userId: string): Promise<string | null> {
  const row = await db(em)
    .selectFrom('stream_event')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.id == null ? null : String(row.id);
}

type NewEvent = { name: string; data: Record<string, unknown> };
type NumberedEvent = NewEvent & { idx: number };

/**
 * The append of `eventsJson` (a JSON array of NumberedEvent): the events travel as one parameter, so the
 * text is the same whatever their number, and are inserted in their order (idx), so ids ascend in it.
 */
function insertStreamEventsQuery({ userId, eventsJson }: { userId: string; eventsJson: string }) {
  return offline
    .with('before', (k) => k.selectFrom('stream_event').select((eb) => eb.fn.max('id').as('id')).where('user_id', '=', userId))
    .insertInto('stream_event')
    .columns(['user_id', 'name', 'data'])
    .expression((eb) =>
      eb
        .selectFrom(recordset<NumberedEvent, 'r'>(eventsJson, 'r', 'idx integer, name text, data jsonb'))
        .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), 'r.name', 'r.data'])
        .orderBy('r.idx'),
    )
    .returning((eb) => ['id', 'user_id', 'name', 'data', eb.selectFrom('before').select('before.id').as('before_id')]);
}

/** Run by every write that announces itself on the live stream: its text built once (compiled-once.ts). */
const insertStreamEventsOnce = compiledOnce(insertStreamEventsQuery, (p, value) => ({ userId: value(p.userId), eventsJson: value(p.eventsJson) }));

/**
 * Appends the user's events in the order given (ids ascending); returns them, each with the id of the
 * user's newest event before this append (`before_id`, null when there was none): one statement.
 */
export async function insertStreamEvents(tx: EntityManager, userId: string, events: NewEvent[]) {
  const eventsJson = JSON.stringify(events.map((e, idx): NumberedEvent => ({ idx, name: e.name, data: e.data })));
  return (await db(tx).executeQuery(insertStreamEventsOnce({ userId, eventsJson }))).rows;
}

/** The user's events after `afterId` younger than `windowSeconds`, oldest first, at most `max`. */
export function selectStreamEventsAfter(em: EntityManager, userId: string, afterId: string, windowSeconds: number, max: number) {
  return db(em)
    .selectFrom('stream_event')
    .select(['id', 'user_id', 'name', 'data'])
    .where('user_id', '=', userId)
    .where('id', '>', afterId)
    .where('created_at', '>', nowShifted('-', windowSeconds))
    .orderBy('id')
    .limit(max)
    .execute();
}

/** Deletes events older than `windowSeconds`; returns how many. */
export async function deleteOldStreamEvents(em: EntityManager, windowSeconds: number): Promise<number> {
  const row = await db(em)
    .with('d', (qc) => qc.deleteFrom('stream_event').where('created_at', '<', nowShifted('-', windowSeconds)).returning('id'))
    .selectFrom('d')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirst();
  return row?.n ?? 0;
}
