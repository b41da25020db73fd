// The year in review's own reads (year-in-review.ts), each bounded whatever the user's history: the
// year's top titles through user_year_title's index in their order, and the year's first and latest
// watch, one index lookup each (watch_history_user_time). The days, genres and runs come from the reads
// the other statistics share (stats-repository.ts, figures/days-repository.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { itemColumns } from '../catalog/repository.ts';
import { db } from '../db/query-builder.ts';

/** The user's `limit` titles of the year with the most entries, then the most minutes, with the catalog row of each. */
export function topYearTitles(em: EntityManager, userId: string, year: number, limit: number) {
  return db(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('user_year_title')
        .select(['title_id', 'watches', 'minutes'])
        .where('user_id', '=', userId)
        .where('year', '=', year)
        .orderBy('watches', 'desc')
        .orderBy('minutes', 'desc')
        .orderBy('title_id')
        .limit(limit)
        .as('y'),
    )
    .innerJoin('title as t', 't.id', 'y.title_id')
    .select((eb) => [...itemColumns(eb), 'y.title_id', 'y.watches', 'y.minutes'])
    .orderBy('y.watches', 'desc')
    .orderBy('y.minutes', 'desc')
    .orderBy('y.title_id')
    .execute();
}

/**
 * The id of the user's first (`asc`) or latest (`desc`) entry from `from` and before `before`, up to
 * `now`, in the history's order (watched_at, then id); undefined when there is none.
 */
export async function edgeEntryId(em: EntityManager, userId: string, span: { from: Date; before: Date; now: Date }, direction: 'asc' | 'desc'): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('watch_history')
    .select('id')
    .where('user_id', '=', userId)
    .where('watched_at', '>=', span.from)
    .where('watched_at', '<', span.before)
    .where('watched_at', '<=', span.now)
    .orderBy('watched_at', direction)
    .orderBy('id', direction)
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
