// The trending roll-up: what the community watched in the last 7 days, per title (distinct watchers and
// watches), precomputed by the `trending` job into title_trending so GET /catalog/trending reads a small
// table instead of grouping a week of watch_history per request. Replaced whole in one transaction:
// readers see the previous roll-up or the new one. Watches logged "in the future" (within the clock-skew
// allowance) do not count yet, as in the community overview.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { replaceTrending } from './repository.ts';

const TRENDING_WINDOW_DAYS = 7;

export async function rollUpTrending(em: EntityManager, now: Date): Promise<{ titles: number }> {
  const since = new Date(now.getTime() - TRENDING_WINDOW_DAYS * 86_400_000);
  return transaction(em, async (tx) => ({ titles: await replaceTrending(tx, since, now) }));
}
