// Earning trophies. A trophy is earned once: one user_trophy row per (user, trophy), inserted with
// `on conflict do nothing`, so the job, a second instance of it and a read that evaluates on the fly can
// all try at once and exactly one insert wins. Only the winner records the notification and the change,
// in the same transaction as the row: a crash leaves all three or none. Rows are never deleted while the
// user exists (deleting history does not take a trophy back).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges } from '../changes/record.ts';
import { recordNotification } from '../notifications/record.ts';
import type { TrophyDefinition } from './catalog.ts';
import type { Metrics } from './metrics.ts';
import { presentTrophy } from './present.ts';
import { earnedTrophies, insertEarned } from './repository.ts';

/** The user's earned trophies: id -> when. */
export async function readEarned(em: EntityManager, userId: string): Promise<Map<string, Date>> {
  const rows = await earnedTrophies(em, userId);
  return new Map(rows.map((r) => [r.trophy_id, new Date(r.earned_at)]));
}

/** Awards the trophies (those already earned are left alone); returns the ones this call earned. */
export async function awardTrophies(tx: EntityManager, userId: string, due: readonly TrophyDefinition[], metrics: Partial<Metrics>): Promise<Map<string, Date>> {
  if (due.length === 0) return new Map();
  const rows = await insertEarned(tx, userId, due.map((d) => d.id));
  const won = new Map(rows.map((r) => [r.trophy_id, new Date(r.earned_at)]));
  const records = [];
  for (const d of due) {
    const earnedAt = won.get(d.id);
    if (!earnedAt) continue;
    const trophy = presentTrophy(d, metrics[d.metric] ?? d.target, earnedAt);
    records.push(trophy);
    await recordNotification(tx, {
      userId,
      kind: 'trophy_earned',
      title: `Trophy earned: ${d.name}`,
      body: d.description,
      data: trophy,
      dedupeKey: `trophy:${d.id}`,
    });
  }
  await recordChanges(tx, userId, records.map((t) => ({ resource: 'trophies' as const, resourceId: t.id, op: 'upsert' as const, data: t })));
  return won;
}
