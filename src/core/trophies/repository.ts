// The trophies' statements: the list metrics (over the user's own lists), the earned rows, and the trophy
// job's cursor and pages.
import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { sql, type Kysely } from 'kysely';
import { settledHorizon, xid8 } from '../changes/repository.ts';
import type { ChangeResource } from '../changes/resources.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { jsonb } from '../db/json.ts';

// ---- metrics

/** Lists the user made (not the watchlist, not external ones), and the item count of their largest plain list. */
export function listTotals(em: EntityManager, userId: string) {
  return db(em)
    .selectFrom('list')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere('kind', '<>', 'external'), 'integer').as('lists'),
      eb.cast<number>(eb.fn.coalesce(eb.fn.max('item_count').filterWhere('kind', '=', 'plain'), eb.lit(0)), 'integer').as('list_items_max'),
    ])
    .where('owner_id', '=', userId)
    .where((eb) => eb.not(eb.ref('is_watchlist')))
    .executeTakeFirstOrThrow();
}

// ---- earned trophies

export function earnedTrophies(em: EntityManager, userId: string) {
  return db(em).selectFrom('user_trophy').select(['trophy_id', 'earned_at']).where('user_id', '=', userId).execute();
}

/**
 * Inserts the earned rows not there yet; returns those inserted. A user deleted since the change was read
 * earns nothing (and does not fail the job's batch): the rows come from the user's own row.
 */
export function insertEarned(tx: EntityManager, userId: string, trophyIds: readonly string[]) {
  const k = db(tx);
  return k
    .insertInto('user_trophy')
    .columns(['user_id', 'trophy_id'])
    .expression(
      k
        .selectFrom('app_user as u')
        .crossJoin((eb) => eb.fn<{ value: string }>('jsonb_array_elements_text', [jsonb(trophyIds)]).as('t'))
        .select(['u.id as user_id', 't.value as trophy_id'])
        .where('u.id', '=', userId),
    )
    .onConflict((oc) => oc.columns(['user_id', 'trophy_id']).doNothing())
    .returning(['trophy_id', 'earned_at'])
    .execute();
}

// ---- the trophy job's cursor and pages

/** The job's position in change_log (xid8 and id as text); locked for the transaction with `lock`. */
export function trophyCursor(em: EntityManager, lock = false) {
  return db(em)
    .selectFrom('trophy_cursor')
    .select((eb) => [eb.cast<string>('xid', 'text').as('xid'), eb.cast<string>('change_id', 'text').as('id')])
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirstOrThrow();
}

export async function moveTrophyCursor(tx: EntityManager, to: { xid: string; id: string }): Promise<void> {
  await db(tx)
    .updateTable('trophy_cursor')
    .set((eb) => ({ xid: xid8(to.xid), change_id: to.id, updated_at: eb.fn<Date>('now') }))
    .execute();
}

/**
 * A page of the followed resources' changes after `from`, of settled transactions only (xid below the
 * horizon), in (xid, id) order: its last position, its size, and the users it touched with their resources.
 * Parameters in this order: the position's xid and id, then the page size (READ_PAGE's $1, $2, $3).
 */
export function trophyPageQuery(k: Kysely<Tables>, resources: readonly ChangeResource[], from: { xid: string; id: string }, size: number) {
  return k
    .with('page', (qc) =>
      qc
        .selectFrom('change_log')
        .select(['user_id', 'resource', 'xid', 'id'])
        // raw: literals, not parameters: the planner uses the partial index change_log_trophy_follow only
        // when the query's own text implies its predicate (the migration lists the same resources).
        .where('resource', 'in', resources.map((r) => sql.lit(r)))
        .where((eb) => eb(eb.refTuple('xid', 'id'), '>', eb.tuple(xid8(from.xid), eb.cast<string>(eb.val(from.id), 'bigint'))))
        .where('xid', '<', settledHorizon())
        .orderBy('xid')
        .orderBy('id')
        .limit(size),
    )
    .with('last', (qc) =>
      qc
        .selectFrom('page as p')
        .select((eb) => [eb.cast<string>('p.xid', 'text').as('xid'), eb.cast<string>('p.id', 'text').as('id')])
        .orderBy('p.xid', 'desc')
        .orderBy('p.id', 'desc')
        .limit((eb) => eb.lit(1)),
    )
    .selectNoFrom((eb) => [
      eb.selectFrom('last').select('last.xid').as('xid'),
      eb.selectFrom('last').select('last.id').as('id'),
      eb
        .selectFrom('page')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .as('n'),
      eb.fn
        .coalesce(
          eb
            .selectFrom((eb) =>
              eb
                .selectFrom('page')
                .select((eb) => ['page.user_id', eb.fn.agg<ChangeResource[]>('array_agg', ['page.resource']).distinct().as('resources')])
                .groupBy('page.user_id')
                .as('u'),
            )
            .select((eb) => eb.fn.agg('json_agg', [jsonBuildObject({ userId: eb.ref('u.user_id'), resources: eb.ref('u.resources') })]).as('users')),
          eb.fn('json_build_array'),
        )
        .$castTo<{ userId: string; resources: ChangeResource[] }[]>()
        .as('users'),
    ])
    // A count is never null.
    .$narrowType<{ n: number }>();
}

export function trophyPage(em: EntityManager, resources: readonly ChangeResource[], from: { xid: string; id: string }, size: number) {
  return trophyPageQuery(db(em), resources, from, size).executeTakeFirstOrThrow();
}
