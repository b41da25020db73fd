// Favourite flag and show status of a title for a user (table user_title_state; a row exists while
// either is set). The one write path for both, used by the ratings API and the automatic show-status
// transitions. Call inside a transaction: each change is recorded in the change feed with it.
//
// Items carry the title's favourite flag, status and title-level rating (library-items.ts), so a change
// to one re-records the title's other items: the newest record of every resource id in the feed is
// always what a read would answer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges, type Change } from '../changes/record.ts';
import { applyLibraryCounts, countDelta, favouriteCount, statusCount, type LibraryCountDelta } from '../figures/library-counts.ts';
import { libraryItems, titleStateItems, type LibraryItem, type ShowStatus } from './library-items.ts';
import {
  clearShowStatus,
  dropEmptyState,
  lockTitleStates,
  lockTitleStatus,
  markFavourite,
  setShowStatusSetBy,
  storeShowStatus,
  unmarkFavourite,
} from './title-state-repository.ts';

export type StateTitle = { id: string; type: 'movie' | 'show'; movieDbId: number };

/** resourceId of a title's favourite and show-status records in the change feed, e.g. `show:9000001`. */
const titleResourceId = (t: StateTitle) => `${t.type}:${t.movieDbId}`;

/** Statuses a movie may hold: planning to watch it, or having watched it. */
export const MOVIE_STATUSES: readonly ShowStatus[] = ['planned', 'completed'];

/**
 * Records the title's current favourite and status items (when set), its rating items when `ratings`,
 * and a delete of the list named in `deleted`.
 */
export async function recordTitleState(tx: EntityManager, userId: string, title: StateTitle, opts: { ratings: boolean; deleted?: 'favourites' | 'show_status' }): Promise<void> {
  const changes: Change[] = [];
  if (opts.deleted) changes.push({ resource: opts.deleted, resourceId: titleResourceId(title), op: 'delete', data: null });
  changes.push(...((await titleStateRecords(tx, userId, [title])).get(title.id) ?? []));
  if (opts.ratings) {
    for (const r of await libraryItems(tx, userId, 'ratings', { titleId: title.id })) changes.push({ resource: 'ratings', resourceId: r.id, op: 'upsert', data: r });
  }
  await recordChanges(tx, userId, changes);
}

/**
 * The current favourite and status items of each title (when set) as change records, by title id: what
 * recordTitleState records of them, read in two queries whatever the number of titles (bulk ratings
 * gather the records of a whole batch and record them at once).
 */
export async function titleStateRecords(tx: EntityManager, userId: string, titles: StateTitle[]): Promise<Map<string, Change[]>> {
  const records = new Map<string, Change[]>();
  if (titles.length === 0) return records;
  const ids = [...new Set(titles.map((t) => t.id))];
  const favourites = await titleStateItems(tx, userId, 'favourites', ids);
  const statuses = await titleStateItems(tx, userId, 'statuses', ids);
  for (const title of titles) {
    const resourceId = titleResourceId(title);
    const changes: Change[] = [];
    const favourite = favourites.get(title.id);
    if (favourite) changes.push({ resource: 'favourites', resourceId, op: 'upsert', data: favourite });
    const status = statuses.get(title.id);
    if (status) changes.push({ resource: 'show_status', resourceId, op: 'upsert', data: status });
    records.set(title.id, changes);
  }
  return records;
}

// Writes of one user's ratings, favourites and statuses are serialised by lockTitleStates
// (title-state-repository.ts) for the rest of the transaction. A write re-records items another write
// may be changing (a status change re-records the title's ratings): in turn, each reads what the one
// before committed, and the feed's last record of an item (the snapshot's answer) is its current state.
export { lockTitleStates };

/**
 * Marks or unmarks a favourite; the favourite item afterwards (null when not a favourite). No change, no
 * record. `at`: when it was marked (an import keeps the time it had elsewhere), default now. The
 * favourites' count moves with the change (none when there is none).
 */
export async function setFavourite(tx: EntityManager, userId: string, title: StateTitle, favourite: boolean, at?: Date): Promise<LibraryItem | null> {
  await lockTitleStates(tx, userId);
  if (favourite) {
    const marked = await markFavourite(tx, userId, title.id, at);
    if (marked) {
      await applyLibraryCounts(tx, userId, [countDelta(favouriteCount(marked), 1)]);
      await recordTitleState(tx, userId, title, { ratings: true });
    }
  } else {
    const unmarked = await unmarkFavourite(tx, userId, title.id);
    if (unmarked) {
      await applyLibraryCounts(tx, userId, [countDelta(favouriteCount(unmarked), -1)]);
      // A row without a favourite or a status is in no list: removing it moves no count.
      await dropEmptyState(tx, userId, title.id);
      await recordTitleState(tx, userId, title, { ratings: true, deleted: 'favourites' });
    }
  }
  const [item] = await libraryItems(tx, userId, 'favourites', { titleId: title.id });
  return item ?? null;
}

/**
 * Sets (or with null clears) the title's status, by the user or by the automatic rules. Setting the
 * status it already has changes nothing but who set it. Answers whether the status changed. The statuses'
 * counts move with the change: out of the old status's count, into the new one's.
 */
export async function writeShowStatus(tx: EntityManager, userId: string, title: StateTitle, status: ShowStatus | null, setBy: 'user' | 'auto'): Promise<boolean> {
  await lockTitleStates(tx, userId);
  // The row is locked until the end of the transaction: the status read here is the one replaced.
  const current = await lockTitleStatus(tx, userId, title.id);
  if (status === null) {
    if (!current?.show_status) return false;
    const cleared = await clearShowStatus(tx, userId, title.id);
    if (cleared) await applyLibraryCounts(tx, userId, [countDelta(statusCount(cleared, current.show_status), -1)]);
    await dropEmptyState(tx, userId, title.id);
    await recordTitleState(tx, userId, title, { ratings: true, deleted: 'show_status' });
    return true;
  }
  if (current?.show_status === status) {
    if (current.show_status_set_by !== setBy) {
      await setShowStatusSetBy(tx, userId, title.id, setBy);
    }
    return false;
  }
  const stored = await storeShowStatus(tx, userId, title.id, status, setBy);
  const deltas: LibraryCountDelta[] = [countDelta(statusCount(stored, status), 1)];
  if (current?.show_status) deltas.push(countDelta(statusCount(stored, current.show_status), -1));
  await applyLibraryCounts(tx, userId, deltas);
  await recordTitleState(tx, userId, title, { ratings: true });
  return true;
}
