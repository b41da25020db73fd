// Storage of playback sessions (one row per user and playback_session_id) and of accepted event ids.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import type { PlaybackResponse } from './schemas.ts';
import type { SessionState } from './state.ts';

/** Sessions and event receipts are kept this long after their last event. */
export const SESSION_TTL_DAYS = 30;
export const RECEIPT_TTL_DAYS = 7;

export type Session = { state: SessionState; progress: number | null; lastEventAt: number; scrobbled: boolean; titleId: string; episodeId: string | null };

/** Serialises the playback writes of one user (state machine, receipts, Continue Watching) until commit. */
export async function lockUserPlayback(tx: EntityManager, userId: string): Promise<void> {
  await query(tx, { text: `select pg_advisory_xact_lock(hashtextextended('playback:' || $1, 0))`, params: [userId] });
}

export async function findSession(tx: EntityManager, userId: string, key: string): Promise<Session | null> {
  const [row] = await query<{ state: SessionState; progress: number | null; last_event_at: string; scrobbled: boolean; title_id: string; episode_id: string | null }>(tx, {
    text: `select state, progress, last_event_at, scrobbled_at is not null as scrobbled, title_id, episode_id
      from playback_session where user_id = $1 and session_key = $2`,
    params: [userId, key],
  });
  return row
    ? { state: row.state, progress: row.progress, lastEventAt: Number(row.last_event_at), scrobbled: row.scrobbled, titleId: String(row.title_id), episodeId: row.episode_id === null ? null : String(row.episode_id) }
    : null;
}

export async function saveSession(tx: EntityManager, userId: string, key: string, s: Omit<Session, 'scrobbled'>): Promise<void> {
  await query(tx, {
    text: `insert into playback_session (user_id, session_key, title_id, episode_id, state, progress, last_event_at)
      values ($1, $2, $3, $4, $5, $6, $7)
      on conflict (user_id, session_key) do update set title_id = excluded.title_id, episode_id = excluded.episode_id,
        state = excluded.state, progress = excluded.progress, last_event_at = excluded.last_event_at, updated_at = now()`,
    params: [userId, key, s.titleId, s.episodeId, s.state, s.progress, s.lastEventAt],
  });
}

/** Notes that the session's watch is in the history, so no later stop of it logs another. */
export async function markScrobbled(tx: EntityManager, userId: string, key: string): Promise<void> {
  await query(tx, { text: `update playback_session set scrobbled_at = now() where user_id = $1 and session_key = $2`, params: [userId, key] });
}

export async function findReceipt(tx: EntityManager, userId: string, eventId: string): Promise<PlaybackResponse | null> {
  const [row] = await query<{ response: PlaybackResponse }>(tx, { text: `select response from playback_event_receipt where user_id = $1 and event_id = $2`, params: [userId, eventId] });
  return row?.response ?? null;
}

export async function saveReceipt(tx: EntityManager, userId: string, eventId: string, response: PlaybackResponse): Promise<void> {
  await query(tx, { text: `insert into playback_event_receipt (user_id, event_id, response) values ($1, $2, $3)`, params: [userId, eventId, JSON.stringify(response)] });
}

/** Deletes sessions and receipts past their time; returns how many rows went. */
export async function sweepSessions(em: EntityManager): Promise<number> {
  const [row] = await query<{ n: number }>(em, {
    text: `with s as (delete from playback_session where updated_at < now() - make_interval(days => $1) returning 1),
      r as (delete from playback_event_receipt where received_at < now() - make_interval(days => $2) returning 1)
      select (select count(*) from s)::int + (select count(*) from r)::int as n`,
    params: [SESSION_TTL_DAYS, RECEIPT_TTL_DAYS],
  });
  return row?.n ?? 0;
}
