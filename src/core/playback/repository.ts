// The playback module's statements: playback sessions, event receipts and Continue Watching entries.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder } from 'kysely';
import { holdLocks } from '../db/advisory-lock.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
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

// The statements every playback event runs (receipt, session, Continue Watching entry) are compiled once
// (compiled-once.ts): building and compiling them per event cost about as much CPU as running them.
// Each builder below makes its statement against `offline`; the `...Once` beside it keeps its text.

/** Every value of a key pair (user, session or event) travels as a parameter: one shape. */
type UserKey = { userId: string; key: string };
const userKeyValues = (p: UserKey, value: <T>(v: T) => T): UserKey => ({ userId: value(p.userId), key: value(p.key) });

function selectSessionQuery({ userId, key }: UserKey) {
  return offline
    .selectFrom('playback_session')
    .select((eb) => ['state', 'progress', 'last_event_at', eb('scrobbled_at', 'is not', null).$castTo<boolean>().as('scrobbled'), 'title_id', 'episode_id'])
    .where('user_id', '=', userId)
    .where('session_key', '=', key);
}

/** Run by every playback event: its text built once. */
const selectSessionOnce = compiledOnce(selectSessionQuery, userKeyValues);

export async function selectSession(tx: EntityManager, userId: string, key: string) {
  return (await db(tx).executeQuery(selectSessionOnce({ userId, key }))).rows[0];
}

export type SessionWrite = {
  titleId: string;
  episodeId: string | null;
  state: SessionState;
  progress: number | null;
  lastEventAt: number;
};

/** lastEventAt as the text of its bigint, made before the values become parameters. */
type SessionUpsert = UserKey & { s: Omit<SessionWrite, 'lastEventAt'> & { lastEventAt: string } };

function upsertSessionQuery({ userId, key, s }: SessionUpsert) {
  return offline
    .insertInto('playback_session')
    .values({ user_id: userId, session_key: key, title_id: s.titleId, episode_id: s.episodeId, state: s.state, progress: s.progress, last_event_at: s.lastEventAt })
    .onConflict((oc) =>
      oc.columns(['user_id', 'session_key']).doUpdateSet((eb) => ({
        title_id: eb.ref('excluded.title_id'),
        episode_id: eb.ref('excluded.episode_id'),
        state: eb.ref('excluded.state'),
        progress: eb.ref('excluded.progress'),
        last_event_at: eb.ref('excluded.last_event_at'),
        updated_at: eb.fn<Date>('now'),
      })),
    );
}

/** Run by every playback event that applies: its text built once (nulls included, as parameters). */
const upsertSessionOnce = compiledOnce(upsertSessionQuery, (p, value) => ({
  ...userKeyValues(p, value),
  s: { titleId: value(p.s.titleId), episodeId: value(p.s.episodeId), state: value(p.s.state), progress: value(p.s.progress), lastEventAt: value(p.s.lastEventAt) },
}));

export async function upsertSession(tx: EntityManager, userId: string, key: string, s: SessionWrite): Promise<void> {
  const { titleId, episodeId, state, progress } = s;
  await db(tx).executeQuery(upsertSessionOnce({ userId, key, s: { titleId, episodeId, state, progress, lastEventAt: String(s.lastEventAt) } }));
}

function setScrobbledQuery({ userId, key }: UserKey) {
  return offline
    .updateTable('playback_session')
    .set((eb) => ({ scrobbled_at: eb.fn<Date>('now') }))
    .where('user_id', '=', userId)
    .where('session_key', '=', key);
}

/** Run by every stop that logs a watch: its text built once. */
const setScrobbledOnce = compiledOnce(setScrobbledQuery, userKeyValues);

export async function setScrobbled(tx: EntityManager, userId: string, key: string): Promise<void> {
  await db(tx).executeQuery(setScrobbledOnce({ userId, key }));
}

function selectReceiptQuery({ userId, key }: UserKey) {
  return offline.selectFrom('playback_event_receipt').select('response').where('user_id', '=', userId).where('event_id', '=', key);
}

/** Run by every playback event: its text built once. */
const selectReceiptOnce = compiledOnce(selectReceiptQuery, userKeyValues);

export async function selectReceipt(tx: EntityManager, userId: string, eventId: string): Promise<PlaybackResponse | null> {
  const row = (await db(tx).executeQuery(selectReceiptOnce({ userId, key: eventId }))).rows[0];
  return row?.response ?? null;
}

/** The response as its JSON text (what jsonb() in json.ts sends), so the text is a parameter like the rest. */
type ReceiptWrite = UserKey & { responseJson: string };

function insertReceiptQuery({ userId, key, responseJson }: ReceiptWrite) {
  return offline
    .insertInto('playback_event_receipt')
    .values((eb) => ({ user_id: userId, event_id: key, response: eb.cast<PlaybackResponse>(eb.val(responseJson), 'jsonb') }));
}

/** Run by every playback event: its text built once. */
const insertReceiptOnce = compiledOnce(insertReceiptQuery, (p, value) => ({ ...userKeyValues(p, value), responseJson: value(p.responseJson) }));

export async function insertReceipt(tx: EntityManager, userId: string, eventId: string, response: PlaybackResponse): Promise<void> {
  await db(tx).executeQuery(insertReceiptOnce({ userId, key: eventId, responseJson: JSON.stringify(response) }));
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

type UserTitle = { userId: string; titleId: string };

function selectHeldEntryQuery({ userId, titleId }: UserTitle) {
  return offline
    .selectFrom('continue_watching')
    .select((eb) => ['id', eb('removed_at', 'is not', null).$castTo<boolean>().as('removed'), 'last_event_at', 'episode_id', 'progress', 'position_seconds', 'duration_seconds', 'session_key'])
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId);
}

/** Run by every event that moves progress: its text built once. */
const selectHeldEntryOnce = compiledOnce(selectHeldEntryQuery, (p, value) => ({ userId: value(p.userId), titleId: value(p.titleId) }));

export async function selectHeldEntry(tx: EntityManager, userId: string, titleId: string) {
  return (await db(tx).executeQuery(selectHeldEntryOnce({ userId, titleId }))).rows[0];
}

type Touch = { id: string; eventAt: string };

function touchEntryQuery({ id, eventAt }: Touch) {
  return offline.updateTable('continue_watching').set({ last_event_at: eventAt }).where('id', '=', id);
}

/** Run by every progress event that changes nothing but the time: its text built once. */
const touchEntryOnce = compiledOnce(touchEntryQuery, (p, value) => ({ id: value(p.id), eventAt: value(p.eventAt) }));

export async function touchEntry(tx: EntityManager, id: string, eventAt: number): Promise<void> {
  await db(tx).executeQuery(touchEntryOnce({ id, eventAt: String(eventAt) }));
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

/** eventAt as the text of its bigint, made before the values become parameters. */
type EntryUpsert = { userId: string; u: Omit<EntryWrite, 'eventAt'> & { eventAt: string } };

function upsertEntryQuery({ userId, u }: EntryUpsert) {
  return offline
    .with('written', (qc) =>
      qc
        .insertInto('continue_watching')
        .values({
          user_id: userId, title_id: u.titleId, episode_id: u.episodeId, season_number: u.season, episode_number: u.episode, progress: u.progress,
          position_seconds: u.positionSeconds, duration_seconds: u.durationSeconds, session_key: u.sessionKey, last_event_at: u.eventAt, client_id: u.clientId,
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
    .select((eb) => eb.cast<string>('c.updated_at', 'text').as('updated_key'));
}

/**
 * Run by every event that moves progress: its text built once per shape (with or without a given
 * updated_at, which adds a column).
 */
const upsertEntryOnce = compiledOnce(upsertEntryQuery, ({ userId, u }, value) => ({
  userId: value(userId),
  u: {
    titleId: value(u.titleId), episodeId: value(u.episodeId), season: value(u.season), episode: value(u.episode), progress: value(u.progress),
    positionSeconds: value(u.positionSeconds), durationSeconds: value(u.durationSeconds), sessionKey: value(u.sessionKey), eventAt: value(u.eventAt),
    clientId: value(u.clientId), updatedAt: u.updatedAt && value(u.updatedAt),
  },
}));

/** Creates or moves the user's entry of the title (listed again); returns it as listed. */
export async function upsertEntry(tx: EntityManager, userId: string, u: EntryWrite) {
  const row = (await db(tx).executeQuery(upsertEntryOnce({ userId, u: { ...u, eventAt: String(u.eventAt) } }))).rows[0];
  // An upsert always returns its row; as executeTakeFirstOrThrow did, its absence is an error.
  if (!row) throw new Error('upsertEntry: the upsert returned no row');
  return row;
}

/** The episode ids travel as one array parameter, so their number does not change the text. */
type WatchedRemoval = { userId: string; titleId: string; episodeIds: string[]; sessionKey: string; eventAt: string };

function removeEntryWatchedQuery({ userId, titleId, episodeIds, sessionKey, eventAt }: WatchedRemoval) {
  return offline
    .updateTable('continue_watching')
    .set((eb) => ({ removed_at: eb.fn<Date>('now'), last_event_at: eb.fn<string>('greatest', ['last_event_at', eb.val(eventAt)]) }))
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .where('removed_at', 'is', null)
    .where((eb) => eb.or([eb('episode_id', 'is', null), eb('episode_id', '=', eb.fn.any(eb.val(episodeIds))), eb('session_key', '=', sessionKey)]))
    .returning('id');
}

/** Run by every stop that completes a watch: its text built once. */
const removeEntryWatchedOnce = compiledOnce(removeEntryWatchedQuery, (p, value) => ({
  userId: value(p.userId), titleId: value(p.titleId), episodeIds: value(p.episodeIds), sessionKey: value(p.sessionKey), eventAt: value(p.eventAt),
}));

/** Removes the title's listed entry if it is a movie's, holds one of `episodeIds`, or this session; returns its id. */
export async function removeEntryWatched(tx: EntityManager, userId: string, titleId: string, episodeIds: string[], sessionKey: string, eventAt: number) {
  const row = (await db(tx).executeQuery(removeEntryWatchedOnce({ userId, titleId, episodeIds, sessionKey, eventAt: String(eventAt) }))).rows[0];
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
