// The watch history in numbered pages (page N of `limit` entries, with the count of all of them), for
// clients that page by number rather than by cursor (the Trakt-compatible facade). The platform API's
// own read (history-read.ts) is keyset-paged; this one reads the same order, newest first by
// (watched_at, id), with OFFSET over the watch_history_user_time index: page N skips (N - 1) * limit
// index entries (and, with a type filter, looks each skipped entry's title up by primary key).
//
// The count never reads the user's whole history: without a title it is the kept per-day figures
// (user_day_figures: entries, movie entries, episode entries per UTC day) over the whole days of the
// range, plus the entries of the partial days at its ends (at most two days' entries, read from the same
// index); for one title it is that title's entries (the watch_history_user_item index, bounded by the
// title).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

export type NumberedHistoryFilters = {
  /** `movie`: entries of movies; `show`: entries of episodes (the title's type, as the day figures count). */
  type?: 'movie' | 'show' | undefined;
  /** One title's entries (its catalog row id). */
  titleId?: string | undefined;
  /** With titleId: one season's entries. */
  season?: number | undefined;
  /** With titleId: one episode's entries (its row id). */
  episodeId?: string | undefined;
  /** Entries watched at or after this time. */
  startAt?: Date | undefined;
  /** Entries watched before this time. */
  endAt?: Date | undefined;
};

type From = Tables & { w: Tables['watch_history'] };

/** The filters on watch_history `w` (the type through the title's primary key). */
function filtered<O>(q: SelectQueryBuilder<From, 'w', O>, userId: string, f: NumberedHistoryFilters, range: { from?: Date | undefined; to?: Date | undefined }) {
  let r = q.where('w.user_id', '=', userId);
  if (f.type) {
    const type = f.type;
    r = r.where((eb: ExpressionBuilder<From, 'w'>) => eb(eb.selectFrom('title as tt').select('tt.type').whereRef('tt.id', '=', 'w.title_id'), '=', type));
  }
  if (f.titleId) r = r.where('w.title_id', '=', f.titleId);
  if (f.season !== undefined) r = r.where('w.season_number', '=', f.season);
  if (f.episodeId) r = r.where('w.episode_id', '=', f.episodeId);
  if (range.from) r = r.where('w.watched_at', '>=', range.from);
  if (range.to) r = r.where('w.watched_at', '<', range.to);
  return r;
}

/** Entries [offset, offset + limit) of the user's history under the filters, newest first. */
export function historyEntriesAt(em: EntityManager, userId: string, f: NumberedHistoryFilters, offset: number, limit: number) {
  const k = db(em);
  return filtered(k.selectFrom('watch_history as w'), userId, f, { from: f.startAt, to: f.endAt })
    .innerJoin('title as t', 't.id', 'w.title_id')
    .select(['w.id', 'w.title_id', 't.type', 't.movie_db_id', 'w.episode_id', 'w.season_number', 'w.episode_number', 'w.watched_at', 'w.source'])
    .orderBy('w.watched_at', 'desc')
    .orderBy('w.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Counts entries in [from, to) from the rows themselves (a title's entries, or a partial day's). */
async function countRows(em: EntityManager, userId: string, f: NumberedHistoryFilters, from: Date | undefined, to: Date | undefined): Promise<number> {
  const row = await filtered(db(em).selectFrom('watch_history as w'), userId, f, { from, to })
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

const DAY_MS = 86_400_000;
const dayText = (d: Date) => d.toISOString().slice(0, 10);
/** The first UTC midnight at or after `d`. */
const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS);
/** The last UTC midnight at or before `d`. */
const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);

/** The kept entries of the whole UTC days in [from, to) (both midnights; open ends when absent). */
async function countDays(em: EntityManager, userId: string, type: NumberedHistoryFilters['type'], from: Date | undefined, to: Date | undefined): Promise<number> {
  let q = db(em).selectFrom('user_day_figures as d').where('d.user_id', '=', userId);
  if (from) q = q.where('d.day', '>=', dayText(from));
  if (to) q = q.where('d.day', '<', dayText(to));
  const column = type === 'movie' ? 'd.movies' : type === 'show' ? 'd.episodes' : 'd.watches';
  const row = await q.select((eb) => eb.cast<number>(eb.fn.coalesce(eb.fn.sum<number>(column), eb.lit(0)), 'integer').as('n')).executeTakeFirstOrThrow();
  return row.n;
}

/** How many entries the filters select, without reading the user's whole history (see above). */
export async function countHistoryEntries(em: EntityManager, userId: string, f: NumberedHistoryFilters): Promise<number> {
  if (f.titleId) return countRows(em, userId, f, f.startAt, f.endAt);
  const wholeFrom = f.startAt && ceilDay(f.startAt);
  const wholeTo = f.endAt && floorDay(f.endAt);
  // Both ends within one day (or adjacent partial days): the rows of at most two days.
  if (wholeFrom && wholeTo && wholeFrom >= wholeTo) return countRows(em, userId, f, f.startAt, f.endAt);
  let n = await countDays(em, userId, f.type, wholeFrom, wholeTo);
  if (f.startAt && wholeFrom && f.startAt < wholeFrom) n += await countRows(em, userId, f, f.startAt, wholeFrom);
  if (f.endAt && wholeTo && wholeTo < f.endAt) n += await countRows(em, userId, f, wholeTo, f.endAt);
  return n;
}
