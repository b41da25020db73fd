// Logging watches: the one path every writer of watch history uses (the history API, bulk sync,
// playback scrobbles), so deduplication, the change feed and show-status transitions hold everywhere.
//
// A watch of the same movie or episode whose time is within DEDUP_WINDOW of one already logged (or of an
// earlier one in the same call) is the same watch sent again: it is `skipped` and answers the existing
// entry's id. Writes of one user are serialised by a transaction-scoped advisory lock, so two
// concurrent calls cannot both insert the same watch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { changesWritten } from '../changes/written.ts';
import { holdLocks } from '../db/advisory-lock.ts';
import { titleStatesLock } from '../figures/lock.ts';
import { applyWatchFigures } from '../figures/watches.ts';
import { entryFields, type HistoryItem } from './history-items.ts';
import { insertWatches, probeWatches, userHistoryLock, type LoggedWatch, type NewWatchRow, type ProbedWatch } from './history-repository.ts';
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

/** `entry`: a new entry as GET /me/history presents it (its change record's data with its id). */
export type WatchResult = { status: 'inserted' | 'skipped'; id: string; entry?: HistoryItem };

/**
 * Serialises writes of one user's watch history for the rest of the transaction. The library's lock,
 * which the kept figures of a history change are written under, is taken with it (in that order, the
 * order every history writer takes them in): one statement for both.
 */
export async function lockUserHistory(tx: EntityManager, userId: string): Promise<void> {
  await holdLocks(tx, [userHistoryLock(userId), titleStatesLock(userId)]);
}

const probeOf = (watches: WatchInput[]) => watches.map((w, idx) => ({ idx, title_id: w.titleId, episode_id: w.episodeId, watched_at: w.watchedAt.toISOString() }));

/** A watch to insert, with its change record presented as GET /me/history presents the entry (but its id). */
function newWatchRow(w: WatchInput, shown: ProbedWatch | undefined): NewWatchRow & { data: Omit<HistoryItem, 'id'> } {
  if (!shown) throw new Error(`title ${w.titleId} of a watch to log is not in the catalog`);
  const data = entryFields({
    ...shown,
    episode_id: w.episodeId,
    season_number: w.season,
    episode_number: w.episode,
    runtime_minutes: w.runtimeMinutes,
    position_at: w.watchedAt.toISOString(),
  });
  return {
    title_id: w.titleId,
    episode_id: w.episodeId,
    season_number: w.season,
    episode_number: w.episode,
    watched_at: w.watchedAt.toISOString(),
    runtime_minutes: w.runtimeMinutes,
    source: w.source,
    client_id: w.clientId,
    data,
  };
}

const itemKey = (titleId: string, episodeId: string | null) => `${titleId}/${episodeId ?? ''}`;

/**
 * Logs watches in the caller's transaction (`tx` must be inside one). One result per input, in order.
 * Records each new entry in the change feed and applies automatic show-status transitions. Three
 * statements: the lock, the probe for duplicates (which also reads what the new entries show of their
 * titles and episodes), and the insert of the entries with their change records, each record presented
 * here (entryFields, as GET /me/history presents the entry) and given its id by the insert.
 * `statusRules: false` leaves show statuses as they are: an import of this service's own export
 * restores them from its document, where a cleared status is no status.
 */
export async function logWatches(tx: EntityManager, userId: string, watches: WatchInput[], opts: { statusRules?: boolean } = {}): Promise<WatchResult[]> {
  if (watches.length === 0) return [];
  await lockUserHistory(tx, userId);
  const probed = await probeWatches(tx, userId, probeOf(watches), DEDUP_WINDOW_MS / 1000);
  const shown = new Map(probed.map((p) => [p.idx, p]));
  const results: (WatchResult | undefined)[] = new Array(watches.length);
  for (const p of probed) if (p.existing_id !== null) results[p.idx] = { status: 'skipped', id: String(p.existing_id) };

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
    const rows = toInsert.map((idx) => newWatchRow(watches[idx]!, shown.get(idx)));
    const inserted = await insertWatches(tx, userId, rows);
    changesWritten(tx);
    // Match returned rows to inputs by content (within one call, no two inserted watches share it).
    const byContent = new Map(inserted.map((r) => [`${itemKey(String(r.title_id), r.episode_id === null ? null : String(r.episode_id))}@${new Date(r.watched_at).getTime()}`, r]));
    toInsert.forEach((idx, i) => {
      const w = watches[idx]!;
      const row = byContent.get(`${itemKey(w.titleId, w.episodeId)}@${w.watchedAt.getTime()}`)!;
      results[idx] = { status: 'inserted', id: String(row.id), entry: { id: Number(row.id), ...rows[i]!.data } };
    });
    await applyWatchFigures(
      tx,
      userId,
      toInsert.map((idx) => ({ ...watches[idx]!, sign: 1 as const })),
    );
    if (opts.statusRules !== false) await applyWatchTransitions(tx, userId, latestWatchPerTitle(inserted.filter((r) => r.status_rules)));
  }
  for (const [idx, first] of sameAs) results[idx] = { status: 'skipped', id: results[first]!.id };
  return results as WatchResult[];
}

/** The newest new watch of each title, for the show-status rules. */
function latestWatchPerTitle(rows: LoggedWatch[]): { titleId: string; latestWatchedAt: Date }[] {
  const latest = new Map<string, Date>();
  for (const r of rows) {
    const at = new Date(r.watched_at);
    const prev = latest.get(String(r.title_id));
    if (!prev || prev < at) latest.set(String(r.title_id), at);
  }
  return [...latest].map(([titleId, latestWatchedAt]) => ({ titleId, latestWatchedAt }));
}
