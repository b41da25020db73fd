// The statements of the catalog refresh (refresh.ts): which titles are due, and how many.
//
// A title is due when someone follows it (a show status or a favourite), watches it (a row of figures)
// or lists it, its ids are the provider's (not a synthetic title), the provider last answered for it
// long enough ago (never; more than a day for a show still airing; more than 30 days for an ended show
// or a movie), and no fetch of it is under way or waiting for its retry time (catalog_fetch): a title the
// provider failed on, or said is missing, comes back when its retry time comes, not on every run.
//
// Why two shapes for one rule: the pick walks title_refresh_due in order (least recently refreshed first),
// reading the rule's columns from the index alone (it covers them), checks followers against one hash of
// each follow table (or their title indexes, as the planner sees fit), and stops at the batch: with a
// backlog it reads a few hundred index entries. The count has to see every due title: it starts from the
// follow tables (one pass over each) and joins the same index, at the same cost whether ten titles are
// due or ten thousand. On a demo-sized catalog (52k titles, 24k follow rows) each reads 300 to 800
// buffers and takes tens of milliseconds: a run costs that twice, every CATALOG_REFRESH_INTERVAL_MS.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder } from 'kysely';
import { nowShifted } from '../../db/now.ts';
import { db } from '../../db/query-builder.ts';
import type { Tables } from '../../schema/index.ts';
import type { ProviderRef } from './provider.ts';

const DAY_SECS = 86_400;
/** A show still airing (any status but these, the provider's) is refreshed daily; the others monthly. */
const ENDED_STATUSES = ['Ended', 'Canceled'];
const AIRING_REFRESH_SECS = DAY_SECS;
const SETTLED_REFRESH_SECS = 30 * DAY_SECS;

type T = Tables & { t: Tables['title'] };
/** The builder of any query that reads `title as t`, as one reading it alone (the rules name only `t`). */
const titleEb = <DB extends { t: Tables['title'] }, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) => eb as unknown as ExpressionBuilder<T, 't'>;

/** Old enough, and the provider's: the rule on the title row alone. */
function stale<DB extends { t: Tables['title'] }, TB extends keyof DB>(outer: ExpressionBuilder<DB, TB>) {
  const eb = titleEb(outer);
  return eb.and([
    // A literal, so the planner sees the query needs only title_refresh_due's rows (its partial predicate).
    eb('t.source', '<>', sql.lit<string>('synthetic')),
    eb.or([
      eb('t.refreshed_at', 'is', null),
      eb.and([
        eb('t.refreshed_at', '<', nowShifted('-', AIRING_REFRESH_SECS)),
        eb.or([
          eb('t.refreshed_at', '<', nowShifted('-', SETTLED_REFRESH_SECS)),
          eb.and([eb('t.type', '=', 'show'), eb('t.status', 'not in', ENDED_STATUSES)]),
        ]),
      ]),
    ]),
  ]);
}

/** A fetch of the title under way (in any instance) or waiting for its retry time. */
function fetchPending<DB extends { t: Tables['title'] }, TB extends keyof DB>(outer: ExpressionBuilder<DB, TB>) {
  const eb = titleEb(outer);
  return eb.exists(
    eb
      .selectFrom('catalog_fetch as c')
      .select(eb.lit(1).as('one'))
      .whereRef('c.type', '=', 't.type')
      .whereRef('c.movie_db_id', '=', 't.movie_db_id')
      .where((c) =>
        c.or([
          c.and([c('c.state', '=', 'running'), c('c.claimed_until', '>=', sql<Date>`now()`)]),
          c.and([c('c.state', '<>', 'running'), c('c.retry_at', '>', sql<Date>`now()`)]),
        ]),
      ),
  );
}

export type DueTitle = ProviderRef & { titleId: string };

/** At most `limit` due titles, least recently refreshed first (never refreshed first of all). */
export async function dueTitles(em: EntityManager, limit: number): Promise<DueTitle[]> {
  const rows = await db(em)
    .selectFrom('title as t')
    .select(['t.id', 't.type', 't.movie_db_id'])
    .where((eb) =>
      eb.and([
        stale(eb),
        // Each probe reads one index entry: user_title_state_followers, user_title_figures_title, list_item_title.
        eb.or([
          eb.exists(
            eb
              .selectFrom('user_title_state as s')
              .select(eb.lit(1).as('one'))
              .whereRef('s.title_id', '=', 't.id')
              .where((s) => s.or([s('s.show_status', 'is not', null), s('s.is_favourite', '=', true)])),
          ),
          eb.exists(eb.selectFrom('user_title_figures as f').select(eb.lit(1).as('one')).whereRef('f.title_id', '=', 't.id')),
          eb.exists(eb.selectFrom('list_item as li').select(eb.lit(1).as('one')).whereRef('li.title_id', '=', 't.id')),
        ]),
        eb.not(fetchPending(eb)),
      ]),
    )
    .orderBy('t.refreshed_at', (ob) => ob.asc().nullsFirst())
    .orderBy('t.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ titleId: r.id, type: r.type, movieDbId: r.movie_db_id }));
}

/** How many titles are due now (the refresh's backlog). */
export async function countDue(em: EntityManager): Promise<number> {
  const row = await db(em)
    .with('followed', (w) =>
      w
        .selectFrom('user_title_state')
        .select('title_id')
        .where((s) => s.or([s('show_status', 'is not', null), s('is_favourite', '=', true)]))
        .union(w.selectFrom('user_title_figures').select('title_id'))
        .union(w.selectFrom('list_item').select('title_id')),
    )
    .selectFrom('followed')
    .innerJoin('title as t', 't.id', 'followed.title_id')
    .select((eb) => eb.fn.countAll<string>().as('due'))
    .where((eb) => eb.and([stale(eb), eb.not(fetchPending(eb))]))
    .executeTakeFirstOrThrow();
  return Number(row.due);
}
