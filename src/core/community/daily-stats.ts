// The statistics roll-up: per UTC day, the users with a watch, the watches, the users who joined and the
// ratings given. Grouping a month of watch_history on every overview request would grow with the
// community; the `stats-rollup` job writes one row per day instead and the overview reads 30 rows.
// A day is recomputed while it can still change (today, and yesterday for watches logged late) and
// filled in when missing (a first run, or days the job did not run); older days are final. Upserts
// make an overlapping run harmless.
import type { EntityManager } from '@mikro-orm/postgresql';
import { rollUpDays, storedDays, type DueDay } from './repository.ts';

export const DAILY_STATS_DAYS = 30;

export type DailyStats = { date: string; activeUsers: number; watches: number; newUsers: number; ratings: number };

const DAY_MS = 86_400_000;

/** The UTC calendar day `days` days before the one of `now`, YYYY-MM-DD. */
const dayBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString().slice(0, 10);

/**
 * The last DAILY_STATS_DAYS UTC days up to `now`, each [its midnight, the next one); today's ends at
 * `now`: watches logged "in the future" (within the clock-skew allowance) do not count yet, as in the
 * rest of the overview.
 */
function lastDays(now: Date): DueDay[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: DAILY_STATS_DAYS }, (_, i) => {
    const starts = new Date(today - (DAILY_STATS_DAYS - 1 - i) * DAY_MS);
    const ends = new Date(Math.min(starts.getTime() + DAY_MS, now.getTime()));
    return { day: starts.toISOString().slice(0, 10), starts, ends };
  });
}

export async function rollUpDailyStats(em: EntityManager, now: Date): Promise<{ days: number }> {
  return { days: await rollUpDays(em, lastDays(now), dayBefore(now, 1), now) };
}

/** The last DAILY_STATS_DAYS rolled-up days up to `now`, oldest first (days not rolled up yet are absent). */
export async function dailyStats(em: EntityManager, now: Date): Promise<DailyStats[]> {
  const rows = await storedDays(em, dayBefore(now, DAILY_STATS_DAYS), dayBefore(now, 0));
  return rows.map((r) => ({ date: r.day, activeUsers: r.active_users, watches: r.watches, newUsers: r.new_users, ratings: r.ratings }));
}
