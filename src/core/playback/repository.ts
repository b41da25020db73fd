// The playback module's statements: playback sessions, event receipts and Continue Watching entries.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { holdLocks } from '../db/advisory-lock.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { jsonb } from '../db/json.ts';
import type { PlaybackResponse } from '../schema/playback.ts';
import type { SessionState } from './state.ts';

/** now() minus `days` days: make_interval's positional arguments are (years, months, weeks, days). */
function daysAgo(days: number) {
  const eb = expressionBuilder<Tables, never>();
  return eb(eb.fn<Date>('now'), '-', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.val(days)]));
}

// ---- sessions and receipts

/** Takes the transaction-scoped advisory lock of the user's playback writes. */
export async function lockUserPlayback(tx: EntityManager, userId: string): Promise<void> {
  await holdLocks(tx, [`playback:${userId}`]);
}

export function selectSession(tx: EntityManager, userId: string, key: string) {
  return db(tx)
    .selectFrom('playback_session')
    .select((eb) => ['state', 'progress', 'last_event_at', eb('scrobbled_at', 'is not', null).$castTo<boolean>().as('scrobbled'), 'title_id', 'episode_id'])
    .where('user_id', '=', userId)
    .where('session_key', '=', key)
    .executeTakeFirst();
}

export type SessionWrite = {
  titleId: string;
  episodeId: string | null;
  state: SessionState;
  progress: number | null;
  lastEventAt: number;
};

export async function upsertSession(tx: EntityManager, userId: string, key: string, s: SessionWrite): Promise<void> {
  await db(tx)
    .insertInto('playback_session')
    .values({ user_id: userId, session_key: key, title_id: s.titleId, episode_id: s.episodeId, state: s.state, progress: s.progress, last_event_at: String(s.lastEventAt) })
    .onConflict((oc) =>
      oc.columns(['user_id', 'session_key']).doUpdateSet((eb) => ({
        title_id: eb.ref('excluded.title_id'),
        episode_id: eb.ref('excluded.episode_id'),
        state: eb.ref('excluded.state'),
        progress: eb.ref('excluded.progress'),
        last_event_at: eb.ref('excluded.last_event_at'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .execute();
}

export async function setScrobbled(tx: EntityManager, userId: string, key: string): Promise<void> {
  await db(tx)
    .updateTable('playback_session')
    .set((eb) => ({ scrobbled_at: eb.fn<Date>('now') }))
    .where('user_id', '=', userId)
    .where('session_key', '=', key)
    .execute();
}

export async function selectReceipt(tx: EntityManager, userId: string, eventId: string): Promise<PlaybackResponse | null> {
  const row = await db(tx).selectFrom('playback_event_receipt').select('response').where('user_id', '=', userId).where('event_id', '=', eventId).executeTakeFirst();
  return row?.response ?? null;
}

export async function insertReceipt(tx: EntityManager, userId: string, eventId: string, response: PlaybackResponse): Promise<void> {
  await db(tx).insertInto('playback_event_receipt').values({ user_id: userId, event_id: eventId, response: jsonb(response) }).execute();
}

/** Deletes sessions and receipts older than their TTLs, in one statement; returns how many rows went. */
export async function deleteExpiredSessions(em: EntityManager, sessionTtlDays: number, receiptTtlDays: number): Promise<number> {
  const row = await db(em)
    .with('s', (qc) => qc.deleteFrom('playback_session').where('updated_at', '<', daysAgo(sessionTtlDays)).returning('session_key'))
    .with('r', (qc) => qc.deleteFrom('playback_event_receipt').where('received_at', '<', daysAgo(receiptTtlDays)).returning('event_id'))
    .selectNoFrom((eb) =>
      eb(
        eb.cast<number>(eb.selectFrom('s').select((e) => e.fn.countAll().as('n')), 'integer'),
        '+',
        eb.cast<number>(eb.selectFrom('r').select((e) => e.fn.countAll().as('n')), 'integer'),
      ).as('n'),
    )
    .executeTakeFirst();
  return row?.n ?? 0;
}

// ---- Continue Watching

/** An entry's columns as Continue Watching shows them, from `c` (the table or the rows just written) joined to its title and episode. */
const ITEM_COLUMNS = [
  'c.id', 't.type', 't.movie_db_id', 't.is_anime', 't.name', 't.year', 't.poster_path', 'c.season_number', 'c.episode_number',
  'e.name as episode_title', 'c.progress', 'c.position_seconds', 'c.duration_seconds', 'c.session_key', 'c.updated_at',
] as const;

export function selectHeldEntry(tx: EntityManager, userId: string, titleId: string) {
  return db(tx)
    .selectFrom('continue_watching')
    .select((eb) => ['id', eb('removed_at', 'is not', null).$castTo<boolean>().as('removed'), 'last_event_at', 'episode_id', 'progress', 'position_seconds', 'duration_seconds', 'session_key'])
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .executeTakeFirst();
}

export async function touchEntry(tx: EntityManager, id: string, eventAt: number): Promise<void> {
  await db(tx).updateTable('continue_watching').set({ last_event_at: String(eventAt) }).where('id', '=', id).execute();
}

export type EntryWrite = {
  titleId: string;
  episodeId: string | null;
  season: number | null;
  episode: number | null;
  progress: number;
  positionSeconds: number | null;
  durationSeconds: number | null;
  sessionKey: string;
  eventAt: number;
  clientId: string;
  /** When the entry was last updated (an import keeps the time it had elsewhere); default now. */
  updatedAt?: Date | undefined;
};

/** Creates or moves the user's entry of the title (listed again); returns it as listed. */
export function upsertEntry(tx: EntityManager, userId: string, u: EntryWrite) {
  return db(tx)
    .with('written', (qc) =>
      qc
        .insertInto('continue_watching')
        .values({
          user_id: userId, title_id: u.titleId, episode_id: u.episodeId, season_number: u.season, episode_number: u.episode, progress: u.progress,
          position_seconds: u.positionSeconds, duration_seconds: u.durationSeconds, session_key: u.sessionKey, last_event_at: String(u.eventAt), client_id: u.clientId,
          ...(u.updatedAt ? { updated_at: u.updatedAt } : {}),
        })
        .onConflict((oc) =>
          oc.columns(['user_id', 'title_id']).doUpdateSet((eb) => ({
            episode_id: eb.ref('excluded.episode_id'),
            season_number: eb.ref('excluded.season_number'),
            episode_number: eb.ref('excluded.episode_number'),
            progress: eb.ref('excluded.progress'),
            position_seconds: eb.ref('excluded.position_seconds'),
            duration_seconds: eb.ref('excluded.duration_seconds'),
            session_key: eb.ref('excluded.session_key'),
            last_event_at: eb.ref('excluded.last_event_at'),
            client_id: eb.ref('excluded.client_id'),
            updated_at: u.updatedAt ?? eb.fn<Date>('now'),
            removed_at: null,
          })),
        )
        .returningAll(),
    )
    .selectFrom('written as c')
    .innerJoin('title as t', 't.id', 'c.title_id')
    .leftJoin('episode as e', 'e.id', 'c.episode_id')
    .select(ITEM_COLUMNS)
    .select((eb) => eb.cast<string>('c.updated_at', 'text').as('updated_key'))
    .executeTakeFirstOrThrow();
}

/** Removes the title's listed entry if it is a movie's, holds one of `episodeIds`, or this session; returns its id. */
export async function removeEntryWatched(tx: EntityManager, userId: string, titleId: string, episodeIds: string[], sessionKey: string, eventAt: number) {
  const row = await db(tx)
    .updateTable('continue_watching')
    .set((eb) => ({ removed_at: eb.fn<Date>('now'), last_event_at: eb.fn<string>('greatest', ['last_event_at', eb.val(String(eventAt))]) }))
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .where('removed_at', 'is', null)
    .where((eb) => eb.or([eb('episode_id', 'is', null), eb('episode_id', '=', eb.fn.any(eb.val(episodeIds))), eb('session_key', '=', sessionKey)]))
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Removes the user's listed entry `id`, its last_event_at moved to at least `eventAt`; returns its id. */
export async function dismissListedEntry(tx: EntityManager, userId: string, id: number, eventAt: number, ttlDays: number) {
  const row = await db(tx)
    .updateTable('continue_watching')
    .set((eb) => ({ removed_at: eb.fn<Date>('now'), last_event_at: eb.fn<string>('greatest', ['last_event_at', eb.val(String(eventAt))]) }))
    .where('id', '=', String(id))
    .where('user_id', '=', userId)
    // Still listed: not removed, not expired.
    .where('removed_at', 'is', null)
    .where('updated_at', '>', daysAgo(ttlDays))
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A page of the user's listed entries, most recently updated first, after the keyset position `after` ([updated_at text, id]). */
export function selectListedEntries(em: EntityManager, userId: string, ttlDays: number, after: [string, string] | null, limit: number) {
  let q = db(em)
    .selectFrom('continue_watching as c')
    .innerJoin('title as t', 't.id', 'c.title_id')
    .leftJoin('episode as e', 'e.id', 'c.episode_id')
    .select(ITEM_COLUMNS)
    .select((eb) => eb.cast<string>('c.updated_at', 'text').as('updated_key'))
    .where('c.user_id', '=', userId)
    // Still listed: not removed, not expired.
    .where('c.removed_at', 'is', null)
    .where('c.updated_at', '>', daysAgo(ttlDays));
  if (after) {
    q = q.where((eb) => eb(eb.refTuple('c.updated_at', 'c.id'), '<', eb.tuple(eb.cast<Date>(eb.val(after[0]), 'timestamptz'), eb.cast<string>(eb.val(after[1]), 'bigint'))));
  }
  return q.orderBy('c.updated_at', 'desc').orderBy('c.id', 'desc').limit(limit).execute();
}

/** Deletes entries (listed or tombstones) whose last change is older than the TTL; returns them. */
export function deleteExpiredEntries(tx: EntityManager, ttlDays: number) {
  return db(tx)
    .deleteFrom('continue_watching')
    .where((eb) => eb(eb.fn.coalesce('removed_at', 'updated_at'), '<', daysAgo(ttlDays)))
    .returning((eb) => ['id', 'user_id', eb('removed_at', 'is', null).$castTo<boolean>().as('listed')])
    .execute();
}
