// The user's trophy metrics (catalog.ts METRIC_RULES), each from a few aggregate queries over the user's
// rows only (every one starts from an index on user_id / owner_id). Only the groups of metrics asked for
// run: the job asks for those a change can have moved and that still have a trophy to earn.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { query } from '../db/sql.ts';
import { AIRED } from '../library/show-status.ts';
import { RUNTIME } from '../profile/community-stats.ts';
import { TROPHY_METRICS, type TrophyMetric } from './catalog.ts';

export type Metrics = Record<TrophyMetric, number>;

// One pass over the user's history for the counting metrics.
const WATCH_TOTALS = `
select count(*)::int as watches,
  count(distinct w.title_id) filter (where t.type = 'movie')::int as movies,
  count(distinct w.episode_id)::int as episodes,
  count(distinct w.title_id) filter (where t.is_anime)::int as anime_titles,
  coalesce(sum(${RUNTIME}), 0)::bigint as minutes
from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
where w.user_id = $1`;

// Shows whose aired regular episodes are all watched (the same "aired" as the automatic show status).
const SHOWS_COMPLETED = `
select count(*)::int as n from (
  select w.title_id
  from watch_history w join episode e on e.id = w.episode_id
  where w.user_id = $1 and e.season_number > 0 and ${AIRED}
  group by w.title_id
  having count(distinct w.episode_id) >= (
    select count(*) from episode e where e.title_id = w.title_id and e.season_number > 0 and ${AIRED})
) done`;

// Gaps and islands over the distinct UTC days with a watch: within a run, day minus its rank is constant.
const LONGEST_STREAK = `
with days as (
  select distinct (watched_at at time zone 'UTC')::date as d from watch_history where user_id = $1
), runs as (
  select d - (row_number() over (order by d))::int as run from days
)
select coalesce(max(n), 0)::int as days from (select count(*) as n from runs group by run) r`;

const RATINGS = `select count(*)::int as n from user_rating where user_id = $1`;

const LISTS = `
select count(*) filter (where kind <> 'external')::int as lists,
  coalesce(max(item_count) filter (where kind = 'plain'), 0)::int as list_items_max
from list where owner_id = $1 and not is_watchlist`;

type Group = { metrics: readonly TrophyMetric[]; read(em: EntityManager, userId: string): Promise<Partial<Metrics>> };

const one = async <T>(em: EntityManager, text: string, userId: string): Promise<T> => (await query<T>(em, { text, params: [userId] }))[0]!;

const GROUPS: readonly Group[] = [
  {
    metrics: ['watches', 'movies', 'episodes', 'anime_titles', 'hours'],
    async read(em, userId) {
      const r = await one<{ watches: number; movies: number; episodes: number; anime_titles: number; minutes: string }>(em, WATCH_TOTALS, userId);
      return { watches: r.watches, movies: r.movies, episodes: r.episodes, anime_titles: r.anime_titles, hours: Math.floor(Number(r.minutes) / 60) };
    },
  },
  { metrics: ['shows_completed'], read: async (em, userId) => ({ shows_completed: (await one<{ n: number }>(em, SHOWS_COMPLETED, userId)).n }) },
  { metrics: ['longest_streak'], read: async (em, userId) => ({ longest_streak: (await one<{ days: number }>(em, LONGEST_STREAK, userId)).days }) },
  { metrics: ['ratings'], read: async (em, userId) => ({ ratings: (await one<{ n: number }>(em, RATINGS, userId)).n }) },
  { metrics: ['lists', 'list_items_max'], read: (em, userId) => one<{ lists: number; list_items_max: number }>(em, LISTS, userId) },
];

/** The metrics a change of each followed resource can move. */
export const METRICS_OF_RESOURCE: Readonly<Partial<Record<ChangeResource, readonly TrophyMetric[]>>> = {
  history: ['watches', 'movies', 'episodes', 'anime_titles', 'hours', 'shows_completed', 'longest_streak'],
  ratings: ['ratings'],
  lists: ['lists', 'list_items_max'],
  list_items: ['list_items_max'],
};

/** The resources whose changes can earn a trophy (the trophy job follows these in change_log). */
export const TROPHY_RESOURCES = Object.keys(METRICS_OF_RESOURCE) as ChangeResource[];

/** The metrics asked for (default all); the others are absent. */
export async function readMetrics(em: EntityManager, userId: string, wanted: ReadonlySet<TrophyMetric> = new Set(TROPHY_METRICS)): Promise<Partial<Metrics>> {
  const out: Partial<Metrics> = {};
  for (const group of GROUPS) {
    if (group.metrics.some((m) => wanted.has(m))) Object.assign(out, await group.read(em, userId));
  }
  return out;
}
