// The sync module's statements: the change feed, the snapshot, change-log retention, and what bulk
// ratings ask the catalog. Idempotency keys are in idempotency-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { settledHorizon, xid8 } from '../changes/repository.ts';
import type { ChangeResource } from '../changes/resources.ts';
import { prepared } from '../db/sql.ts';
import { db } from '../db/query-builder.ts';
import type { FeedPosition, SnapshotPosition } from './feed-cursor.ts';

// ---- the change feed

/**
 * A page of the user's changes in (xid, id) order after `from`, of settled transactions only, each with
 * the item's latest settled state (the latest row by id below the horizon): two transactions writing one
 * item are serialised by its row lock, so id order is their commit order, while xid order (the feed's
 * order) may not be. A client applying changes in feed order therefore always ends on the item's
 * committed state.
 *
 * The page is chosen first (the inner select, ordered and limited) and the latest state is looked up for
 * its rows only: written as one join, a low row estimate for a small log made the planner look up every
 * remaining change of the user before sorting and limiting, so a small log paged slower than a large one
 * (figures: docs/performance.md, 'Change feed: the page before the latest state').
 * The lookup always finds at least the change itself, so the join drops nothing.
 */
function changesPageQuery(em: EntityManager, userId: string, from: FeedPosition, resources: readonly string[], limit: number) {
  return db(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('change_log as p')
        .select(['p.id', 'p.xid', 'p.user_id', 'p.resource', 'p.resource_id'])
        .where('p.user_id', '=', userId)
        .where((eb) => eb(eb.refTuple('p.xid', 'p.id'), '>', eb.tuple(xid8(from.xid), eb.cast<string>(eb.val(from.id), 'bigint'))))
        .where('p.xid', '<', settledHorizon())
        .where('p.resource', 'in', resources)
        .orderBy('p.xid')
        .orderBy('p.id')
        .limit(limit)
        .as('c'),
    )
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('change_log as n')
        .select(['n.op', 'n.changed_at', 'n.data'])
        .whereRef('n.user_id', '=', 'c.user_id')
        .whereRef('n.resource', '=', 'c.resource')
        .whereRef('n.resource_id', '=', 'c.resource_id')
        .where('n.xid', '<', settledHorizon())
        .orderBy('n.id', 'desc')
        .limit(1)
        .as('l'),
    )
    .select((eb) => [
      eb.cast<string>('c.id', 'text').as('id'),
      eb.cast<string>('c.xid', 'text').as('xid'),
      'c.resource',
      'c.resource_id',
      'l.op',
      'l.changed_at',
      'l.data',
    ])
    .orderBy('c.xid')
    .orderBy('c.id');
}

export function changesPage(em: EntityManager, userId: string, from: FeedPosition, resources: readonly string[], limit: number) {
  // A hot read: one text per number of resources asked for (db/sql.ts, prepared).
  return prepared(em, changesPageQuery(em, userId, from, resources, limit));
}

// ---- the snapshot

/** The oldest transaction still open (xid8 as text): the snapshot's bound. */
export async function snapshotBound(em: EntityManager): Promise<string> {
  const row = await db(em)
    .selectNoFrom((eb) => eb.cast<string>(settledHorizon(), 'text').as('bound'))
    .executeTakeFirstOrThrow();
  return row.bound;
}

/** Items of the compacted log (the latest row per item, by id) below the bound, after `pos.after`: upserts only. */
export function snapshotItems(em: EntityManager, userId: string, resource: ChangeResource, pos: SnapshotPosition, limit: number) {
  return db(em)
    .selectFrom((eb) =>
      eb
        .selectFrom('change_log as c')
        .distinctOn('c.resource_id')
        .select(['c.resource_id', 'c.op', 'c.data'])
        .where('c.user_id', '=', userId)
        .where('c.resource', '=', resource)
        .where('c.resource_id', '>', pos.after)
        .where('c.xid', '<', xid8(pos.bound))
        .orderBy('c.resource_id')
        .orderBy('c.id', 'desc')
        .as('l'),
    )
    .select(['l.resource_id', 'l.data'])
    .where('l.op', '=', 'upsert')
    // An upsert always carries the item.
    .$narrowType<{ data: Record<string, unknown> }>()
    .limit(limit)
    .execute();
}

// ---- retention

/**
 * One step of the retention sweep: the `step` rows after id `after`; of those older than `before`, deleted
 * are upserts with a newer row for the same item, and deletes whose every older row is old enough to go
 * too (each is superseded by the delete, so they all go in this statement or went in an earlier step):
 * the item's older upsert never becomes its latest row. Answers the number deleted, the step's last id
 * and whether it reached rows younger than the period (or the end of the log).
 */
export function pruneChangeLogStep(em: EntityManager, before: Date, step: number, after: string) {
  return db(em)
    .with('step', (qc) =>
      qc
        .selectFrom('change_log as c')
        .select(['c.id', 'c.user_id', 'c.resource', 'c.resource_id', 'c.op', 'c.changed_at'])
        .where('c.id', '>', after)
        .orderBy('c.id')
        .limit(step),
    )
    .with('d', (qc) =>
      qc
        .deleteFrom('change_log')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('step as s')
            .select('s.id')
            .where('s.changed_at', '<', before)
            .where((eb) =>
              eb.or([
                eb.and([
                  eb('s.op', '=', 'upsert'),
                  eb.exists(
                    eb
                      .selectFrom('change_log as n')
                      .select(eb.lit(1).as('one'))
                      .whereRef('n.user_id', '=', 's.user_id')
                      .whereRef('n.resource', '=', 's.resource')
                      .whereRef('n.resource_id', '=', 's.resource_id')
                      .whereRef('n.id', '>', 's.id'),
                  ),
                ]),
                eb.and([
                  eb('s.op', '=', 'delete'),
                  eb.not(
                    eb.exists(
                      eb
                        .selectFrom('change_log as n')
                        .select(eb.lit(1).as('one'))
                        .whereRef('n.user_id', '=', 's.user_id')
                        .whereRef('n.resource', '=', 's.resource')
                        .whereRef('n.resource_id', '=', 's.resource_id')
                        .whereRef('n.id', '<', 's.id')
                        .where('n.changed_at', '>=', before),
                    ),
                  ),
                ]),
              ]),
            ),
        )
        .returning((eb) => eb.lit(1).as('one')),
    )
    .selectNoFrom((eb) => [
      eb
        .selectFrom('d')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .as('deleted'),
      eb
        .selectFrom('step')
        .select((eb) => eb.cast<string>(eb.fn.max('step.id'), 'text').as('id'))
        .as('last'),
      eb.fn
        .coalesce(
          eb.selectFrom('step').select((eb) => eb.fn<boolean>('bool_or', [eb('step.changed_at', '>=', before)]).as('younger')),
          eb.lit(true),
        )
        .as('done'),
    ])
    .executeTakeFirstOrThrow();
}

// ---- bulk writes

/** Of these (title, season) pairs, the ones the catalog has, as `${titleId}:${season}`. */
export async function seasonsFound(tx: EntityManager, pairs: readonly { titleId: string; season: number }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db(tx)
    .selectFrom('season as s')
    .select(['s.title_id', 's.season_number'])
    .where((eb) => eb(eb.refTuple('s.title_id', 's.season_number'), 'in', pairs.map((p) => eb.tuple(p.titleId, p.season))))
    .execute();
  return new Set(rows.map((r) => `${r.title_id}:${r.season_number}`));
}
