// Logging watches: the one path every writer of watch history uses (the history API, bulk sync,
// playback scrobbles), so deduplication, the change feed and show-status transitions hold everywhere.
//
// A watch of the same movie or episode whose time is within DEDUP_WINDOW of one already logged (or of an
// earlier one in the same call) is the same watch sent again: it is `skipped` and answers the existing
// entry's id. Writes of one user are serialised by a transaction-scoped advisory lock, so two
// concurrent calls cannot both insert the same watch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertChangesFrom } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import type { HistoryItem } from './history-items.ts';
import { applyWatchTransitions } from './show-status.ts';

export const DEDUP_WINDOW_MS = 60 * 60 * 1000;

export type WatchInput = {
  titleId: string;
  /** Set for an episode of a show; null for a movie. */
  episodeId: string | null;
  season: number | null;
  episode: number | null;
  watchedAt: Date;
  runtimeMinutes: number | null;
  source: 'api' | 'sync' | 'playback';
  clientId: string | null;
};

export type WatchResult = { status: 'inserted' | 'skipped'; id: string };

/** The change-feed record of a history entry (also what the snapshot returns): the `GET /me/history` item. */
export type HistoryRecord = HistoryItem;

// The statements are exported for bench/sync.ts, whose bare-`pg` baseline runs exactly these.
export const LOCK_USER_HISTORY = `select pg_advisory_xact_lock(hashtextextended('watch_history:' || $1, 0))`;

/** Serialises writes of one user's watch history for the rest of the transaction. */
export async function lockUserHistory(tx: EntityManager, userId: string): Promise<void> {
  await query(tx, { text: LOCK_USER_HISTORY, params: [userId] });
}

export const FIND_EXISTING = `
select r.idx, h.id
from json_to_recordset($2::json) as r(idx integer, title_id bigint, episode_id bigint, watched_at timestamptz)
join lateral (
  select w.id from watch_history w
  where w.user_id = $1 and w.title_id = r.title_id and w.episode_id is not distinct from r.episode_id
    and w.watched_at between r.watched_at - make_interval(secs => $3) and r.watched_at + make_interval(secs => $3)
  order by abs(extract(epoch from w.watched_at - r.watched_at)), w.id
  limit 1
) h on true`;

// The change record of a new entry (w: watch_history, t: title, e: episode): the `GET /me/history` item,
// field for field as toHistoryItem (history-items.ts) builds it; test/sync-history-record.test.ts holds
// the two equal. Built here so the insert records its own changes in the same statement.
const HISTORY_RECORD = `jsonb_build_object('id', w.id, 'movieDbId', t.movie_db_id, 'type', t.type, 'isAnime', t.is_anime,
  'name', t.name, 'year', t.year, 'posterPath', t.poster_path, 'backdropPath', t.backdrop_path,
  'season', w.season_number, 'episode', w.episode_number,
  'episodeTitle', case when w.episode_id is null then null else coalesce(e.name, '') end,
  'stillPath', case when w.episode_id is null then null else coalesce(e.still_path, '') end,
  'runtimeMinutes', w.runtime_minutes, 'watchedAt', to_char(w.watched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

// One statement inserts the watches and their change records, and tells which titles the show-status
// rules can move (a show, or a movie the user has planned): one round trip, no change payloads built in
// code and sent back, and no status query for the many batches that need none (bench/sync.ts: about a
// tenth less CPU per 100-item batch, server and database together).
export const INSERT_WATCHES = `
with ins as (
insert into watch_history (user_id, title_id, episode_id, season_number, episode_number, watched_at, runtime_minutes, source, client_id)
select $1::uuid, r.title_id, r.episode_id, r.season_number, r.episode_number, r.watched_at, r.runtime_minutes, r.source, r.client_id
from json_to_recordset($2::json) as r(idx integer, title_id bigint, episode_id bigint, season_number integer,
  episode_number integer, watched_at timestamptz, runtime_minutes integer, source text, client_id text)
order by r.idx
returning id, title_id, episode_id, season_number, episode_number, watched_at, runtime_minutes
), logged as (
select w.id, w.title_id, w.episode_id, w.watched_at, t.type, ${HISTORY_RECORD} as data
from ins w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
), changes as (
${insertChangesFrom(`(select $1::uuid as user_id, 'history' as resource, l.id::text as resource_id, 'upsert' as op, l.data from logged l order by l.id)`)}
)
select l.id, l.title_id, l.episode_id, l.watched_at,
  l.type = 'show' or exists (select 1 from user_title_state st where st.user_id = $1::uuid and st.title_id = l.title_id and st.show_status = 'planned') as status_rules
from logged l order by l.id`;

type LoggedRow = { id: string; title_id: string; episode_id: string | null; watched_at: Date; status_rules: boolean };

const itemKey = (titleId: string, episodeId: string | null) => `${titleId}/${episodeId ?? ''}`;

/**
 * Logs watches in the caller's transaction (`tx` must be inside one). One result per input, in order.
 * Records each new entry in the change feed and applies automatic show-status transitions.
 */
export async function logWatches(tx: EntityManager, userId: string, watches: WatchInput[]): Promise<WatchResult[]> {
  if (watches.length === 0) return [];
  await lockUserHistory(tx, userId);
  const probe = watches.map((w, idx) => ({ idx, title_id: w.titleId, episode_id: w.episodeId, watched_at: w.watchedAt.toISOString() }));
  const existing = await query<{ idx: number; id: string }>(tx, { text: FIND_EXISTING, params: [userId, JSON.stringify(probe), DEDUP_WINDOW_MS / 1000] });
  const results: (WatchResult | undefined)[] = new Array(watches.length);
  for (const e of existing) results[e.idx] = { status: 'skipped', id: String(e.id) };

  // Duplicates inside this call: the first of a group within the window is inserted, the rest skipped.
  const firstOf = new Map<string, { idx: number; at: number }[]>();
  const toInsert: number[] = [];
  const sameAs = new Map<number, number>();
  watches.forEach((w, idx) => {
    if (results[idx]) return;
    const key = itemKey(w.titleId, w.episodeId);
    const seen = firstOf.get(key) ?? [];
    const match = seen.find((s) => Math.abs(s.at - w.watchedAt.getTime()) <= DEDUP_WINDOW_MS);
    if (match) {
      sameAs.set(idx, match.idx);
      return;
    }
    seen.push({ idx, at: w.watchedAt.getTime() });
    firstOf.set(key, seen);
    toInsert.push(idx);
  });

  if (toInsert.length > 0) {
    const rows = toInsert.map((idx) => {
      const w = watches[idx]!;
      return { idx, title_id: w.titleId, episode_id: w.episodeId, season_number: w.season, episode_number: w.episode, watched_at: w.watchedAt.toISOString(), runtime_minutes: w.runtimeMinutes, source: w.source, client_id: w.clientId };
    });
    const inserted = await query<LoggedRow>(tx, { text: INSERT_WATCHES, params: [userId, JSON.stringify(rows)] });
    // Match returned rows to inputs by content (within one call, no two inserted watches share it).
    const byContent = new Map(inserted.map((r) => [`${itemKey(String(r.title_id), r.episode_id === null ? null : String(r.episode_id))}@${new Date(r.watched_at).getTime()}`, r]));
    for (const idx of toInsert) {
      const w = watches[idx]!;
      const row = byContent.get(`${itemKey(w.titleId, w.episodeId)}@${w.watchedAt.getTime()}`)!;
      results[idx] = { status: 'inserted', id: String(row.id) };
    }
    await applyWatchTransitions(tx, userId, latestWatchPerTitle(inserted.filter((r) => r.status_rules)));
  }
  for (const [idx, first] of sameAs) results[idx] = { status: 'skipped', id: results[first]!.id };
  return results as WatchResult[];
}

/** The newest new watch of each title, for the show-status rules. */
function latestWatchPerTitle(rows: LoggedRow[]): { titleId: string; latestWatchedAt: Date }[] {
  const latest = new Map<string, Date>();
  for (const r of rows) {
    const at = new Date(r.watched_at);
    const prev = latest.get(String(r.title_id));
    if (!prev || prev < at) latest.set(String(r.title_id), at);
  }
  return [...latest].map(([titleId, latestWatchedAt]) => ({ titleId, latestWatchedAt }));
}
