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
import { offline } from '../db/compile.ts';
import { transaction } from '../db/transaction.ts';
import type { TrophyDefinition } from './catalog.ts';
import { awardTrophies } from './award.ts';
import { evaluateTrophies } from './evaluate.ts';
import { TROPHY_RESOURCES, type Metrics } from './metrics.ts';
import { moveTrophyCursor, trophyCursor, trophyPage, trophyPageQuery } from './repository.ts';

/** change_log rows read per page, and pages per round (one evaluation per user touched, one transaction). */
const TROPHY_PAGE = 1000;
const TROPHY_PAGES_PER_ROUND = 50;

/** The page statement's text, parameters $1 xid, $2 id, $3 page size (a test reads its plan). */
export const READ_PAGE = trophyPageQuery(offline, TROPHY_RESOURCES, { xid: '0', id: '0' }, 0).compile().sql;

type Award = { userId: string; due: TrophyDefinition[]; metrics: Partial<Metrics> };

export type FollowResult = { changes: number; users: number; awarded: number };

/**
 * Follows change_log to its settled end, awarding every trophy due. Safe to run anywhere at any time
 * (tests call it directly); returns what it did. A round reads up to `pagesPerRound` pages of
 * `pageSize` rows and evaluates each user touched once, however many of their changes it read: a bulk
 * sync of thousands of watches costs its user one evaluation per round, not one per page.
 */
export async function followTrophyChanges(em: EntityManager, pageSize = TROPHY_PAGE, pagesPerRound = TROPHY_PAGES_PER_ROUND): Promise<FollowResult> {
  const result: FollowResult = { changes: 0, users: 0, awarded: 0 };
  for (;;) {
    const from = await trophyCursor(em);
    let to = from;
    let changes = 0;
    let drained = false;
    const touched = new Map<string, Set<ChangeResource>>();
    for (let p = 0; p < pagesPerRound && !drained; p++) {
      const page = await trophyPage(em, TROPHY_RESOURCES, to, pageSize);
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
      const now = await trophyCursor(tx, true);
      if (now.xid !== from.xid || now.id !== from.id) return null;
      let n = 0;
      for (const a of awards) n += (await awardTrophies(tx, a.userId, a.due, a.metrics)).size;
      await moveTrophyCursor(tx, to);
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
