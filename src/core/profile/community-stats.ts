// GET /me/community-stats, computed from the user's watch history and ratings as of `now` (a parameter,
// so tests can pin the date). Days, weeks (ISO, from Monday) and months are UTC; nothing after `now`
// counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProfilePart } from '../actor-visibility.ts';
import { query } from '../db/sql.ts';
import { judgeWeek, totals, type WeekActivity } from './challenges.ts';
import type { CommunityStats } from './schemas.ts';

const DAY_MS = 86_400_000;

/** Each watch's runtime: as logged, else the episode's, else the title's. */
export const RUNTIME = `coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0)`;

const MONTH_WATCHES = `
select count(*) filter (where t.type = 'movie')::int as movies, count(*) filter (where t.type = 'show')::int as episodes,
  coalesce(sum(${RUNTIME}), 0)::bigint as minutes
from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
where w.user_id = $1 and w.watched_at >= $2 and w.watched_at <= $3`;

const MONTH_GENRES = `
select g.name, count(*)::int as count
from watch_history w join title t on t.id = w.title_id cross join unnest(t.genres) as g(name)
where w.user_id = $1 and w.watched_at >= $2 and w.watched_at <= $3
group by g.name order by count desc, g.name`;

const MONTH_REVIEWS = `select count(*)::int as n from user_rating where user_id = $1 and rated_at >= $2 and rated_at <= $3`;

// The run of consecutive days that ends on the latest day with a watch (gaps and islands: within a run,
// day minus its rank is constant).
const LATEST_RUN = `
with days as (
  select distinct (watched_at at time zone 'UTC')::date as d from watch_history where user_id = $1 and watched_at <= $2
), runs as (
  select d, d - (row_number() over (order by d))::int as run from days
)
select count(*)::int as days, to_char(max(d), 'YYYY-MM-DD') as last
from runs where run = (select run from runs order by d desc limit 1)`;

const WEEKS = `
with watches as (
  select date_trunc('week', w.watched_at at time zone 'UTC') as week,
    count(*) filter (where t.type = 'movie')::int as movies, count(*) filter (where t.type = 'show')::int as episodes,
    count(distinct (w.watched_at at time zone 'UTC')::date)::int as active_days
  from watch_history w join title t on t.id = w.title_id
  where w.user_id = $1 and w.watched_at <= $2
  group by 1
), ratings as (
  select date_trunc('week', rated_at at time zone 'UTC') as week, count(*)::int as ratings
  from user_rating where user_id = $1 and rated_at <= $2
  group by 1
)
select to_char(coalesce(w.week, r.week), 'YYYY-MM-DD') as week, coalesce(w.movies, 0) as movies,
  coalesce(w.episodes, 0) as episodes, coalesce(w.active_days, 0) as active_days, coalesce(r.ratings, 0) as ratings
from watches w full join ratings r on r.week = w.week`;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `see`: the parts the token may read (actor-visibility.ts). Figures computed from watches need
 * `history`, from ratings `ratings`; what the token may not read counts as nothing, challenges and XP
 * included, so no figure reveals activity the token cannot read.
 */
export async function communityStats(em: EntityManager, userId: string, now: Date, see: Pick<Record<ProfilePart, boolean>, 'history' | 'ratings'>): Promise<CommunityStats> {
  if (!see.history && !see.ratings) return statsOf({ genres: [], weekRows: [] }, now);
  const month = [userId, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), now];

  const watches = see.history ? (await query<MonthWatches>(em, { text: MONTH_WATCHES, params: month }))[0] : undefined;
  const genres = see.history ? await query<{ name: string; count: number }>(em, { text: MONTH_GENRES, params: month }) : [];
  const reviews = see.ratings ? (await query<{ n: number }>(em, { text: MONTH_REVIEWS, params: month }))[0] : undefined;
  const run = see.history ? (await query<LatestRun>(em, { text: LATEST_RUN, params: [userId, now] }))[0] : undefined;
  const weekRows = (await query<WeekRow>(em, { text: WEEKS, params: [userId, now] })).map((w) => ({
    ...w,
    ...(see.history ? {} : { movies: 0, episodes: 0, active_days: 0 }),
    ...(see.ratings ? {} : { ratings: 0 }),
  }));
  return statsOf({ genres, weekRows, watches, reviews, run }, now);
}

type MonthWatches = { movies: number; episodes: number; minutes: string };
type LatestRun = { days: number; last: string | null };
type WeekRow = { week: string; movies: number; episodes: number; active_days: number; ratings: number };

type StatsInput = { genres: { name: string; count: number }[]; weekRows: WeekRow[]; watches?: MonthWatches | undefined; reviews?: { n: number } | undefined; run?: LatestRun | undefined };

function statsOf({ genres, weekRows, watches, reviews, run }: StatsInput, now: Date): CommunityStats {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const weekStart = isoDate(today - ((now.getUTCDay() + 6) % 7) * DAY_MS);

  const weeks = new Map<string, WeekActivity>(
    weekRows.map((w) => [w.week, { movies: w.movies, episodes: w.episodes, ratings: w.ratings, activeDays: w.active_days }]),
  );
  const thisWeek = judgeWeek(weeks.get(weekStart) ?? { movies: 0, episodes: 0, ratings: 0, activeDays: 0 });
  const all = totals([...weeks.values()]);
  const genreTotal = genres.reduce((sum, g) => sum + g.count, 0);
  const current = run?.last != null && run.last >= isoDate(today - DAY_MS);

  return {
    streak: current ? run.days : 0,
    monthMovies: watches?.movies ?? 0,
    monthEpisodes: watches?.episodes ?? 0,
    monthHours: Math.floor(Number(watches?.minutes ?? 0) / 60),
    monthReviews: reviews?.n ?? 0,
    monthGenres: genres.map((g) => ({ name: g.name, count: g.count, share: g.count / genreTotal })),
    weeklyChallenges: thisWeek,
    weeklyCompletedChallenges: thisWeek.filter((c) => c.completed).length,
    totalChallengesCompleted: all.challengesCompleted,
    xpScore: all.xpScore,
  };
}
