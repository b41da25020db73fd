// Favourite flag and show status of a title for a user (table user_title_state; a row exists while
// either is set). The one write path for both, used by the ratings API and the automatic show-status
// transitions. Call inside a transaction: each change is recorded in the change feed with it.
//
// Items carry the title's favourite flag, status and title-level rating (library-items.ts), so a change
// to one re-records the title's other items: the newest record of every resource id in the feed is
// always what a read would answer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges, type Change } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { libraryItems, type LibraryItem, type ShowStatus } from './library-items.ts';

export type StateTitle = { id: string; type: 'movie' | 'show'; movieDbId: number };

/** resourceId of a title's favourite and show-status records in the change feed, e.g. `show:9000001`. */
export const titleResourceId = (t: StateTitle) => `${t.type}:${t.movieDbId}`;

/** Statuses a movie may hold: planning to watch it, or having watched it. */
export const MOVIE_STATUSES: readonly ShowStatus[] = ['planned', 'completed'];

/**
 * Records the title's current favourite and status items (when set), its rating items when `ratings`,
 * and a delete of the list named in `deleted`.
 */
export async function recordTitleState(tx: EntityManager, userId: string, title: StateTitle, opts: { ratings: boolean; deleted?: 'favourites' | 'show_status' }): Promise<void> {
  const resourceId = titleResourceId(title);
  const changes: Change[] = [];
  if (opts.deleted) changes.push({ resource: opts.deleted, resourceId, op: 'delete', data: null });
  const [favourite] = await libraryItems(tx, userId, 'favourites', { titleId: title.id });
  if (favourite) changes.push({ resource: 'favourites', resourceId, op: 'upsert', data: favourite });
  const [status] = await libraryItems(tx, userId, 'statuses', { titleId: title.id });
  if (status) changes.push({ resource: 'show_status', resourceId, op: 'upsert', data: status });
  if (opts.ratings) {
    for (const r of await libraryItems(tx, userId, 'ratings', { titleId: title.id })) changes.push({ resource: 'ratings', resourceId: r.id, op: 'upsert', data: r });
  }
  await recordChanges(tx, userId, changes);
}

/**
 * Serialises the writes of one user's ratings, favourites and statuses for the rest of the transaction.
 * A write re-records items another write may be changing (a status change re-records the title's
 * ratings): in turn, each reads what the one before committed, and the feed's last record of an item
 * (the snapshot's answer) is its current state.
 */
export async function lockTitleStates(tx: EntityManager, userId: string): Promise<void> {
  await query(tx, { text: `select pg_advisory_xact_lock(hashtextextended('title_state:' || $1, 0))`, params: [userId] });
}

const dropEmptyState = (tx: EntityManager, userId: string, titleId: string) =>
  query(tx, { text: `delete from user_title_state where user_id = $1 and title_id = $2 and not is_favourite and show_status is null`, params: [userId, titleId] });

/** Marks or unmarks a favourite; the favourite item afterwards (null when not a favourite). No change, no record. */
export async function setFavourite(tx: EntityManager, userId: string, title: StateTitle, favourite: boolean): Promise<LibraryItem | null> {
  await lockTitleStates(tx, userId);
  if (favourite) {
    const changed = await query(tx, {
      text: `insert into user_title_state (user_id, title_id, is_favourite, favourited_at) values ($1, $2, true, now())
        on conflict (user_id, title_id) do update set is_favourite = true, favourited_at = now(), updated_at = now()
        where not user_title_state.is_favourite
        returning id`,
      params: [userId, title.id],
    });
    if (changed.length > 0) await recordTitleState(tx, userId, title, { ratings: true });
  } else {
    const changed = await query(tx, {
      text: `update user_title_state set is_favourite = false, favourited_at = null, updated_at = now()
        where user_id = $1 and title_id = $2 and is_favourite returning id`,
      params: [userId, title.id],
    });
    if (changed.length > 0) {
      await dropEmptyState(tx, userId, title.id);
      await recordTitleState(tx, userId, title, { ratings: true, deleted: 'favourites' });
    }
  }
  const [item] = await libraryItems(tx, userId, 'favourites', { titleId: title.id });
  return item ?? null;
}

type StateRow = { show_status: ShowStatus | null; show_status_set_by: 'user' | 'auto' | null; show_status_at: Date | null };

/** The title's status row, locked for the rest of the transaction; null when there is none. */
async function lockTitleState(tx: EntityManager, userId: string, titleId: string): Promise<StateRow | null> {
  const [row] = await query<StateRow>(tx, {
    text: `select show_status, show_status_set_by, show_status_at from user_title_state where user_id = $1 and title_id = $2 for update`,
    params: [userId, titleId],
  });
  return row ?? null;
}

/**
 * Sets (or with null clears) the title's status, by the user or by the automatic rules. Setting the
 * status it already has changes nothing but who set it. Answers whether the status changed.
 */
export async function writeShowStatus(tx: EntityManager, userId: string, title: StateTitle, status: ShowStatus | null, setBy: 'user' | 'auto'): Promise<boolean> {
  await lockTitleStates(tx, userId);
  const current = await lockTitleState(tx, userId, title.id);
  if (status === null) {
    if (!current?.show_status) return false;
    await query(tx, {
      text: `update user_title_state set show_status = null, show_status_set_by = null, show_status_at = null, updated_at = now() where user_id = $1 and title_id = $2`,
      params: [userId, title.id],
    });
    await dropEmptyState(tx, userId, title.id);
    await recordTitleState(tx, userId, title, { ratings: true, deleted: 'show_status' });
    return true;
  }
  if (current?.show_status === status) {
    if (current.show_status_set_by !== setBy) {
      await query(tx, { text: `update user_title_state set show_status_set_by = $3 where user_id = $1 and title_id = $2`, params: [userId, title.id, setBy] });
    }
    return false;
  }
  await query(tx, {
    text: `insert into user_title_state (user_id, title_id, show_status, show_status_set_by, show_status_at) values ($1, $2, $3, $4, now())
      on conflict (user_id, title_id) do update set show_status = excluded.show_status, show_status_set_by = excluded.show_status_set_by,
        show_status_at = now(), updated_at = now()`,
    params: [userId, title.id, status, setBy],
  });
  await recordTitleState(tx, userId, title, { ratings: true });
  return true;
}
