// The media-server receivers' statements: receivers, the plays they follow, their deferred events. The
// secret is written as its hash and never read back.
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdLocks } from '../db/advisory-lock.ts';
import { db } from '../db/query-builder.ts';
import { jsonb } from '../db/json.ts';
import type { DeferredIds, MediaServerKind } from '../schema/media-servers.ts';

const RECEIVER_COLUMNS = ['id', 'label', 'account_filter', 'created_at', 'secret_created_at', 'last_event_at', 'plex_events', 'jellyfin_events', 'emby_events'] as const;

export type ReceiverRow = Awaited<ReturnType<typeof selectReceivers>>[number];

/** Serialises a user's receiver creations until commit, so two at once cannot pass the cap together. */
export async function lockUserReceivers(tx: EntityManager, userId: string): Promise<void> {
  await holdLocks(tx, [`media_server_receivers:${userId}`]);
}

export async function countReceivers(tx: EntityManager, userId: string): Promise<number> {
  const row = await db(tx).selectFrom('media_server_receiver').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertReceiver(tx: EntityManager, r: { userId: string; label: string; accountFilter: string | null; secretHash: string }) {
  return db(tx)
    .insertInto('media_server_receiver')
    .values({ user_id: r.userId, label: r.label, account_filter: r.accountFilter, secret_hash: r.secretHash })
    .returning(RECEIVER_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** The user's receivers, oldest first. */
export function selectReceivers(em: EntityManager, userId: string) {
  return db(em).selectFrom('media_server_receiver').select(RECEIVER_COLUMNS).where('user_id', '=', userId).orderBy('id').execute();
}

/** Renames a receiver of the user or changes its account filter; undefined when the user has no such receiver. */
export function updateReceiver(em: EntityManager, userId: string, id: number, change: { label?: string | undefined; accountFilter?: string | null | undefined }) {
  return db(em)
    .updateTable('media_server_receiver')
    .set({
      ...(change.label !== undefined ? { label: change.label } : {}),
      ...(change.accountFilter !== undefined ? { account_filter: change.accountFilter } : {}),
    })
    .where('id', '=', String(id))
    .where('user_id', '=', userId)
    .returning(RECEIVER_COLUMNS)
    .executeTakeFirst();
}

/** Gives a receiver of the user a new secret (the old one stops at once); undefined when there is no such receiver. */
export function replaceSecret(em: EntityManager, userId: string, id: number, secretHash: string) {
  return db(em)
    .updateTable('media_server_receiver')
    .set((eb) => ({ secret_hash: secretHash, secret_created_at: eb.fn<Date>('now') }))
    .where('id', '=', String(id))
    .where('user_id', '=', userId)
    .returning(RECEIVER_COLUMNS)
    .executeTakeFirst();
}

/** Deletes a receiver of the user (its plays and deferred events go with it); whether there was one. */
export async function deleteReceiver(em: EntityManager, userId: string, id: number): Promise<boolean> {
  const rows = await db(em).deleteFrom('media_server_receiver').where('id', '=', String(id)).where('user_id', '=', userId).returning('id').execute();
  return rows.length > 0;
}

/** The receiver a secret opens, by its hash (one unique-index lookup). */
export function receiverBySecretHash(em: EntityManager, secretHash: string) {
  return db(em).selectFrom('media_server_receiver').select(['id', 'user_id', 'account_filter']).where('secret_hash', '=', secretHash).executeTakeFirst();
}

const EVENT_COUNT = { plex: 'plex_events', jellyfin: 'jellyfin_events', emby: 'emby_events' } as const;

/** Counts one event of `kind` received by the receiver, now. */
export async function countEvent(em: EntityManager, id: string, kind: MediaServerKind): Promise<void> {
  const column = EVENT_COUNT[kind];
  await db(em)
    .updateTable('media_server_receiver')
    .set((eb) => ({ [column]: eb(column, '+', 1), last_event_at: eb.fn<Date>('now') }))
    .where('id', '=', id)
    .execute();
}

// ---- plays

export type PlayRow = { session_id: string; last_fingerprint: string; ended: boolean; watched: boolean; updated_at: Date };

/**
 * Takes the transaction-scoped advisory lock of one play: its events are decided one at a time, the
 * first two of a play the receiver has no row of yet included.
 */
export async function lockPlay(tx: EntityManager, receiverId: string, playKey: string): Promise<void> {
  await holdLocks(tx, [`media_server_play:${receiverId}:${playKey}`]);
}

export function selectPlay(tx: EntityManager, receiverId: string, playKey: string): Promise<PlayRow | undefined> {
  return db(tx)
    .selectFrom('media_server_play')
    .select(['session_id', 'last_fingerprint', 'ended', 'watched', 'updated_at'])
    .where('receiver_id', '=', receiverId)
    .where('play_key', '=', playKey)
    .executeTakeFirst();
}

export async function upsertPlay(tx: EntityManager, receiverId: string, playKey: string, p: Omit<PlayRow, 'updated_at'>): Promise<void> {
  await db(tx)
    .insertInto('media_server_play')
    .values({ receiver_id: receiverId, play_key: playKey, session_id: p.session_id, last_fingerprint: p.last_fingerprint, ended: p.ended, watched: p.watched })
    .onConflict((oc) =>
      oc.columns(['receiver_id', 'play_key']).doUpdateSet((eb) => ({
        session_id: eb.ref('excluded.session_id'),
        last_fingerprint: eb.ref('excluded.last_fingerprint'),
        ended: eb.ref('excluded.ended'),
        watched: eb.ref('excluded.watched'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .execute();
}

/** Forgets the receiver's plays without an event for `days` days. */
export async function deleteIdlePlays(tx: EntityManager, receiverId: string, days: number): Promise<void> {
  await db(tx)
    .deleteFrom('media_server_play')
    .where('receiver_id', '=', receiverId)
    // make_interval's positional arguments are (years, months, weeks, days).
    .where((eb) => eb('updated_at', '<', eb(eb.fn<Date>('now'), '-', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.val(days)]))))
    .execute();
}

// ---- deferred events

export type DeferredWrite = {
  receiverId: string;
  kind: MediaServerKind;
  event: string;
  mediaType: 'movie' | 'episode';
  title: string;
  year: number | null;
  season: number | null;
  episode: number | null;
  ids: DeferredIds;
};

/**
 * Records a deferred event (in place of an earlier one of the same item: a play's start, pauses and stop
 * are one thing to show) and keeps the receiver's newest `keep`.
 */
export async function insertDeferred(tx: EntityManager, d: DeferredWrite, keep: number): Promise<void> {
  await db(tx)
    .deleteFrom('media_server_deferred')
    .where('receiver_id', '=', d.receiverId)
    .where('media_type', '=', d.mediaType)
    .where('title', '=', d.title)
    .where('season', 'is not distinct from', d.season)
    .where('episode', 'is not distinct from', d.episode)
    .execute();
  await db(tx)
    .insertInto('media_server_deferred')
    .values({ receiver_id: d.receiverId, kind: d.kind, event: d.event, media_type: d.mediaType, title: d.title, year: d.year, season: d.season, episode: d.episode, ids: jsonb(d.ids) })
    .execute();
  await db(tx)
    .deleteFrom('media_server_deferred')
    .where('id', 'in', (eb) => eb.selectFrom('media_server_deferred').select('id').where('receiver_id', '=', d.receiverId).orderBy('id', 'desc').offset(keep))
    .execute();
}

/** The deferred events of these receivers, newest first. */
export function selectDeferred(em: EntityManager, receiverIds: string[]) {
  if (receiverIds.length === 0) return Promise.resolve([]);
  return db(em)
    .selectFrom('media_server_deferred')
    .select(['receiver_id', 'kind', 'event', 'media_type', 'title', 'year', 'season', 'episode', 'ids', 'received_at'])
    .where('receiver_id', 'in', receiverIds)
    .orderBy('id', 'desc')
    .execute();
}
