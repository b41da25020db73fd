// Logging watches: the one path every writer of watch history uses (the history API, bulk sync,
// playback scrobbles), so deduplication, the change feed and show-status transitions hold everywhere.
//
// A watch of the same movie or episode whose time is within DEDUP_WINDOW of one already logged (or of an
// earlier one in the same call) is the same watch sent again: it is `skipped` and answers the existing
// entry's id. Writes of one user are serialised by a transaction-scoped advisory lock, so two
// concurrent calls cannot both insert the same watch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { selectHistory, toHistoryItem, type HistoryItem, type HistoryRow } from './history-items.ts';
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

/** Serialises writes of one user's watch history for the rest of the transaction. */
export async function lockUserHistory(tx: EntityManager, userId: string): Promise<void> {
  await query(tx, { text: `select pg_advisory_xact_lock(hashtextextended('watch_history:' || $1, 0))`, params: [userId] });
}

const FIND_EXISTING = `
select r.idx, h.id
from json_to_recordset($2::json) as r(idx integer, title_id bigint, episode_id bigint, watched_at timestamptz)
join lateral (
  select w.id from watch_history w
  where w.user_id = $1 and w.title_id = r.title_id and w.episode_id is not distinct from r.episode_id
    and w.watched_at between r.watched_at - make_interval(secs => $3) and r.watched_at + make_interval(secs => $3)
  order by abs(extract(epoch from w.watched_at - r.watched_at)), w.id
  limit 1
) h on true`;

const INSERT_WATCHES = `
with ins as (
insert into watch_history (user_id, title_id, episode_id, season_number, episode_number, watched_at, runtime_minutes, source, client_id)
select $1, r.title_id, r.episode_id, r.season_number, r.episode_number, r.watched_at, r.runtime_minutes, r.source, r.client_id
from json_to_recordset($2::json) as r(idx integer, title_id bigint, episode_id bigint, season_number integer,
  episode_number integer, watched_at timestamptz, runtime_minutes integer, source text, client_id text)
order by r.idx
returning *
)
${selectHistory('ins')} order by w.id`;

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
    const inserted = await query<HistoryRow>(tx, { text: INSERT_WATCHES, params: [userId, JSON.stringify(rows)] });
    // Match returned rows to inputs by content (within one call, no two inserted watches share it).
    const byContent = new Map(inserted.map((r) => [`${itemKey(String(r.title_id), r.episode_id === null ? null : String(r.episode_id))}@${new Date(r.watched_at).getTime()}`, r]));
    for (const idx of toInsert) {
      const w = watches[idx]!;
      const row = byContent.get(`${itemKey(w.titleId, w.episodeId)}@${w.watchedAt.getTime()}`)!;
      results[idx] = { status: 'inserted', id: String(row.id) };
    }
    await recordChanges(
      tx,
      userId,
      inserted.map((r) => ({ resource: 'history' as const, resourceId: r.id, op: 'upsert' as const, data: toHistoryItem(r) })),
    );
    await applyWatchTransitions(tx, userId, latestWatchPerTitle(inserted));
  }
  for (const [idx, first] of sameAs) results[idx] = { status: 'skipped', id: results[first]!.id };
  return results as WatchResult[];
}

/** The newest new watch of each title, for the show-status rules. */
function latestWatchPerTitle(rows: HistoryRow[]): { titleId: string; latestWatchedAt: Date }[] {
  const latest = new Map<string, Date>();
  for (const r of rows) {
    const at = new Date(r.watched_at);
    const prev = latest.get(String(r.title_id));
    if (!prev || prev < at) latest.set(String(r.title_id), at);
  }
  return [...latest].map(([titleId, latestWatchedAt]) => ({ titleId, latestWatchedAt }));
}
