// GET /api/public/v1/community/overview: community-wide figures from real history and list likes.
// The watch figures read the last 30 days through the index on watch_history (watched_at) (index-only:
// it includes user_id and title_id); the answer is the same for everyone, so the caller caches it for a
// short while and `generatedAt` says when it was computed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ITEM_COLUMNS, toCatalogItem, type ItemRow } from '../catalog/present.ts';
import { query } from '../db/sql.ts';
import { dailyStats } from './daily-stats.ts';
import { publicLists } from './public-lists.ts';
import { OVERVIEW_LISTS, OVERVIEW_TITLES, type CommunityOverview } from './schemas.ts';

const DAY_MS = 86_400_000;

// $1: 30 days ago, $2: 7 days ago, $3: now (watches logged "in the future" within the clock-skew
// allowance do not count yet).
const ACTIVITY = `
select count(distinct user_id) filter (where watched_at >= $2)::int as week_users,
  count(distinct user_id)::int as month_users,
  count(*) filter (where watched_at >= $2)::int as week_watches
from watch_history where watched_at >= $1 and watched_at <= $3`;

const MOST_WATCHED = `
select ${ITEM_COLUMNS}, x.watchers, x.watches
from (
  select title_id, count(distinct user_id)::int as watchers, count(*)::int as watches
  from watch_history where watched_at >= $1 and watched_at <= $2
  group by title_id
  order by watchers desc, watches desc, title_id
  limit $3
) x join title t on t.id = x.title_id
order by x.watchers desc, x.watches desc, t.id`;

// Lists of private profiles stay out: a private user appears nowhere on the public API. Likes are
// counted over the whole like table (an index-only scan of its primary key), once per cached answer.
const TOP_LISTS = `
select l.id from (select list_id, count(*) as likes from list_like group by list_id) c
join list l on l.id = c.list_id and l.is_public
join app_user u on u.id = l.owner_id and u.profile_privacy = 'public'
order by c.likes desc, l.id desc
limit $1`;

export async function communityOverview(em: EntityManager, imageBaseUrl: string, now: Date): Promise<CommunityOverview> {
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS);
  const monthAgo = new Date(now.getTime() - 30 * DAY_MS);
  const [activity] = await query<{ week_users: number; month_users: number; week_watches: number }>(em, { text: ACTIVITY, params: [monthAgo, weekAgo, now] });
  const titles = await query<ItemRow & { watchers: number; watches: number }>(em, { text: MOST_WATCHED, params: [weekAgo, now, OVERVIEW_TITLES] });
  const lists = await query<{ id: string }>(em, { text: TOP_LISTS, params: [OVERVIEW_LISTS] });
  return {
    generatedAt: now.toISOString(),
    activeUsers: { last7Days: activity?.week_users ?? 0, last30Days: activity?.month_users ?? 0 },
    watchesThisWeek: activity?.week_watches ?? 0,
    mostWatchedThisWeek: titles.map((r) => ({ title: toCatalogItem(r, imageBaseUrl), watchers: r.watchers, watches: r.watches })),
    topLists: await publicLists(em, lists.map((r) => String(r.id))),
    daily: await dailyStats(em, now),
  };
}
