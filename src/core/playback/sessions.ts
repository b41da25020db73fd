// Storage of playback sessions (one row per user and playback_session_id) and of accepted event ids.
import type { EntityManager } from '@mikro-orm/postgresql';
import * as repo from './repository.ts';
import type { PlaybackResponse } from '../schema/playback.ts';
import type { SessionState } from './state.ts';

/** Sessions and event receipts are kept this long after their last event. */
const SESSION_TTL_DAYS = 30;
const RECEIPT_TTL_DAYS = 7;

export type Session = { state: SessionState; progress: number | null; lastEventAt: number; scrobbled: boolean; titleId: string; episodeId: string | null };

/** Serialises the playback writes of one user (state machine, receipts, Continue Watching) until commit. */
export async function lockUserPlayback(tx: EntityManager, userId: string): Promise<void> {
  await repo.lockUserPlayback(tx, userId);
}

export async function findSession(tx: EntityManager, userId: string, key: string): Promise<Session | null> {
  const row = await repo.selectSession(tx, userId, key);
  return row
    ? { state: row.state, progress: row.progress, lastEventAt: Number(row.last_event_at), scrobbled: row.scrobbled, titleId: String(row.title_id), episodeId: row.episode_id === null ? null : String(row.episode_id) }
    : null;
}

export async function saveSession(tx: EntityManager, userId: string, key: string, s: Omit<Session, 'scrobbled'>): Promise<void> {
  await repo.upsertSession(tx, userId, key, s);
}

/** Notes that the session's watch is in the history, so no later stop of it logs another. */
export async function markScrobbled(tx: EntityManager, userId: string, key: string): Promise<void> {
  await repo.setScrobbled(tx, userId, key);
}

export function findReceipt(tx: EntityManager, userId: string, eventId: string): Promise<PlaybackResponse | null> {
  return repo.selectReceipt(tx, userId, eventId);
}

export async function saveReceipt(tx: EntityManager, userId: string, eventId: string, response: PlaybackResponse): Promise<void> {
  await repo.insertReceipt(tx, userId, eventId, response);
}

/** Deletes sessions and receipts past their time; returns how many rows went. */
export function sweepSessions(em: EntityManager): Promise<number> {
  return repo.deleteExpiredSessions(em, SESSION_TTL_DAYS, RECEIPT_TTL_DAYS);
}
