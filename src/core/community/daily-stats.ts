// The statistics roll-up: per UTC day, the users with a watch, the watches, the users who joined and the
// ratings given. Grouping a month of watch_history on every overview request would grow with the
// community; the `stats-rollup` job writes one row per day instead and the overview reads 30 rows.
// A day is recomputed while it can still change (today, and yesterday for watches logged late) and
// filled in when missing (a first run, or days the job did not run); older days are final. Upserts
// make an overlapping run harmless.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';

export const DAILY_STATS_DAYS = 30;

export type DailyStats = { date: string; activeUsers: number; watches: number; newUsers: number; ratings: number };

// $1: now. Days are UTC calendar days; watches logged "in the future" (within the clock-skew allowance)
// do not count yet, as in the rest of the overview.
const ROLL_UP = `
with days as (
  select d::date as day, d as starts, d + interval '1 day' as ends
  from generate_series(date_trunc('day', $1::timestamptz at time zone 'UTC') - interval '${DAILY_STATS_DAYS - 1} days',
                       date_trunc('day', $1::timestamptz at time zone 'UTC'), interval '1 day') d
), due as (
  select day, starts at time zone 'UTC' as starts, least(ends at time zone 'UTC', $1::timestamptz) as ends from days
  where day >= ($1::timestamptz at time zone 'UTC')::date - 1
     or not exists (select 1 from community_daily_stats s where s.day = days.day)
), upserted as (
  insert into community_daily_stats (day, active_users, watches, new_users, ratings, computed_at)
  select due.day,
    (select count(distinct w.user_id) from watch_history w where w.watched_at >= due.starts and w.watched_at < due.ends),
    (select count(*) from watch_history w where w.watched_at >= due.starts and w.watched_at < due.ends),
    (select count(*) from app_user u where u.created_at >= due.starts and u.created_at < due.ends),
    (select count(*) from user_rating r where r.rated_at >= due.starts and r.rated_at < due.ends),
    $1
  from due
  on conflict (day) do update set active_users = excluded.active_users, watches = excluded.watches,
    new_users = excluded.new_users, ratings = excluded.ratings, computed_at = excluded.computed_at
  returning 1
)
select count(*)::int as days from upserted`;

export async function rollUpDailyStats(em: EntityManager, now: Date): Promise<{ days: number }> {
  const [row] = await query<{ days: number }>(em, { text: ROLL_UP, params: [now] });
  return { days: row?.days ?? 0 };
}

/** The last DAILY_STATS_DAYS rolled-up days up to `now`, oldest first (days not rolled up yet are absent). */
export async function dailyStats(em: EntityManager, now: Date): Promise<DailyStats[]> {
  const rows = await query<{ day: string; active_users: number; watches: number; new_users: number; ratings: number }>(em, {
    text: `select to_char(day, 'YYYY-MM-DD') as day, active_users, watches, new_users, ratings from community_daily_stats
           where day > ($1::timestamptz at time zone 'UTC')::date - ${DAILY_STATS_DAYS} and day <= ($1::timestamptz at time zone 'UTC')::date
           order by day`,
    params: [now],
  });
  return rows.map((r) => ({ date: r.day, activeUsers: r.active_users, watches: r.watches, newUsers: r.new_users, ratings: r.ratings }));
}
