// The trophy job's work: follow change_log for the resources that can earn a trophy (history, ratings,
// lists, list items), re-evaluate the users whose data changed, award what is due. The write paths do
// no trophy work (bulk sync pays only one entry per change row in the partial index the job reads);
// earning follows them within seconds.
//
// The job reads change_log the way the change feed does: rows after its stored cursor in
// (xid, id) order, only those of transactions older than every transaction still open
// (xid < pg_snapshot_xmin). A history write that commits late therefore cannot land behind the cursor:
// it is read on a later run, never skipped. The awards of a round and the cursor's advance past it commit
// in one transaction, so a crash neither loses an award (the round is read again) nor doubles one (the
// unique earned row). The cursor row is locked and compared in that transaction: when two instances
// run at once, the one that finds the cursor moved drops its round (the other has awarded it).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import type { TrophyDefinition } from './catalog.ts';
import { awardTrophies } from './award.ts';
import { evaluateTrophies } from './evaluate.ts';
import { TROPHY_RESOURCES, type Metrics } from './metrics.ts';

/** change_log rows read per page, and pages per round (one evaluation per user touched, one transaction). */
export const TROPHY_PAGE = 1000;
export const TROPHY_PAGES_PER_ROUND = 50;

// Spelled out, not a parameter: the planner uses the partial index change_log_trophy_follow only when
// the query's own text implies its predicate (the migration lists the same resources).
const FOLLOWED = `resource in (${TROPHY_RESOURCES.map((r) => `'${r}'`).join(', ')})`;

export const READ_PAGE = `
with page as (
  select user_id, resource, xid, id from change_log
  where ${FOLLOWED} and (xid, id) > ($1::xid8, $2::bigint) and xid < pg_snapshot_xmin(pg_current_snapshot())
  order by xid, id
  limit $3
), last as (
  select p.xid::text as xid, p.id::text as id from page p order by p.xid desc, p.id desc limit 1
)
select (select xid from last) as xid, (select id from last) as id, (select count(*)::int from page) as n,
  coalesce((select json_agg(json_build_object('userId', u.user_id, 'resources', u.resources))
    from (select user_id, array_agg(distinct resource) as resources from page group by user_id) u), '[]'::json) as users`;

type Position = { xid: string; id: string };
type Page = { xid: string | null; id: string | null; n: number; users: { userId: string; resources: ChangeResource[] }[] };
type Award = { userId: string; due: TrophyDefinition[]; metrics: Partial<Metrics> };

export type FollowResult = { changes: number; users: number; awarded: number };

async function readCursor(em: EntityManager, lock = false): Promise<Position> {
  const [row] = await query<Position>(em, { text: `select xid::text as xid, change_id::text as id from trophy_cursor${lock ? ' for update' : ''}`, params: [] });
  return row!;
}

/**
 * Follows change_log to its settled end, awarding every trophy due. Safe to run anywhere at any time
 * (tests call it directly); returns what it did. A round reads up to `pagesPerRound` pages of
 * `pageSize` rows and evaluates each user touched once, however many of their changes it read: a bulk
 * sync of thousands of watches costs its user one evaluation per round, not one per page.
 */
export async function followTrophyChanges(em: EntityManager, pageSize = TROPHY_PAGE, pagesPerRound = TROPHY_PAGES_PER_ROUND): Promise<FollowResult> {
  const result: FollowResult = { changes: 0, users: 0, awarded: 0 };
  for (;;) {
    const from = await readCursor(em);
    let to = from;
    let changes = 0;
    let drained = false;
    const touched = new Map<string, Set<ChangeResource>>();
    for (let p = 0; p < pagesPerRound && !drained; p++) {
      const [page] = (await query<Page>(em, { text: READ_PAGE, params: [to.xid, to.id, pageSize] })) as [Page];
      drained = page.n < pageSize;
      if (page.n === 0) break;
      changes += page.n;
      to = { xid: page.xid!, id: page.id! };
      for (const u of page.users) {
        const set = touched.get(u.userId) ?? new Set();
        for (const r of u.resources) set.add(r);
        touched.set(u.userId, set);
      }
    }
    if (changes === 0) return result;
    const awards: Award[] = [];
    for (const [userId, resources] of touched) {
      const { due, metrics } = await evaluateTrophies(em, userId, resources);
      if (due.length) awards.push({ userId, due, metrics });
    }
    const awarded = await transaction(em, async (tx) => {
      const now = await readCursor(tx, true);
      if (now.xid !== from.xid || now.id !== from.id) return null;
      let n = 0;
      for (const a of awards) n += (await awardTrophies(tx, a.userId, a.due, a.metrics)).size;
      await query(tx, { text: `update trophy_cursor set xid = $1::xid8, change_id = $2::bigint, updated_at = now()`, params: [to.xid, to.id] });
      return n;
    });
    // Another instance moved the cursor meanwhile: it has awarded this range.
    if (awarded === null) return result;
    result.changes += changes;
    result.users += touched.size;
    result.awarded += awarded;
    if (drained) return result;
  }
}
