// GET /me/trophies and GET /me/trophies/summary. A read evaluates the caller's progress on the fly and
// awards what is due right away (the same award the trophy job would make a few seconds later, with its
// notification), so `earned` always agrees with `progress` and with the summary.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { TIER_POINTS, TROPHIES, TROPHY_CATEGORIES, TROPHY_TIERS } from './catalog.ts';
import { awardTrophies, readEarned } from './award.ts';
import { evaluateTrophies } from './evaluate.ts';
import { presentTrophy } from './present.ts';
import type { Tally, Trophy, TrophyList, TrophySummary } from './schemas.ts';

export async function currentTrophies(em: EntityManager, userId: string): Promise<TrophyList> {
  const { earned, metrics, due } = await evaluateTrophies(em, userId);
  if (due.length) {
    const won = await transaction(em, (tx) => awardTrophies(tx, userId, due, metrics));
    // Those this read did not win, the job or another read awarded meanwhile: their rows hold the time.
    const now = won.size < due.length ? await readEarned(em, userId) : won;
    for (const [id, at] of now) earned.set(id, at);
  }
  return { items: TROPHIES.map((d) => presentTrophy(d, metrics[d.metric] ?? 0, earned.get(d.id) ?? null)) };
}

const tallies = <K extends string>(keys: readonly K[], items: Trophy[], keyOf: (t: Trophy) => K): Record<K, Tally> => {
  const out = Object.fromEntries(keys.map((k) => [k, { earned: 0, total: 0 }])) as Record<K, Tally>;
  for (const t of items) {
    const tally = out[keyOf(t)];
    tally.total++;
    if (t.earned) tally.earned++;
  }
  return out;
};

export async function trophySummary(em: EntityManager, userId: string): Promise<TrophySummary> {
  const { items } = await currentTrophies(em, userId);
  const earned = items.filter((t) => t.earned);
  const last = earned.map((t) => t.earnedAt!).sort().at(-1) ?? null;
  return {
    earned: earned.length,
    total: items.length,
    points: earned.reduce((sum, t) => sum + t.points, 0),
    totalPoints: TROPHIES.reduce((sum, d) => sum + TIER_POINTS[d.tier], 0),
    byTier: tallies(TROPHY_TIERS, items, (t) => t.tier),
    byCategory: tallies(TROPHY_CATEGORIES, items, (t) => t.category),
    lastEarnedAt: last,
  };
}
