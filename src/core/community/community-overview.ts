// GET /api/public/v1/community/overview: community-wide figures from real history and list likes.
// The watch figures read the last 30 days through the index on watch_history (watched_at) (index-only:
// it includes user_id and title_id); the answer is the same for everyone, so the caller caches it for a
// short while and `generatedAt` says when it was computed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { toCatalogItem } from '../catalog/present.ts';
import { dailyStats } from './daily-stats.ts';
import { publicLists } from './public-lists.ts';
import { activity, mostWatched, topListIds } from './repository.ts';
import { OVERVIEW_LISTS, OVERVIEW_TITLES, type CommunityOverview } from './schemas.ts';

const DAY_MS = 86_400_000;

// Watches logged "in the future" (within the clock-skew allowance) do not count yet: every window ends at now.
export async function communityOverview(em: EntityManager, imageBaseUrl: string, now: Date): Promise<CommunityOverview> {
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS);
  const monthAgo = new Date(now.getTime() - 30 * DAY_MS);
  const active = await activity(em, monthAgo, weekAgo, now);
  const titles = await mostWatched(em, weekAgo, now, OVERVIEW_TITLES);
  const lists = await topListIds(em, OVERVIEW_LISTS);
  return {
    generatedAt: now.toISOString(),
    activeUsers: { last7Days: active?.week_users ?? 0, last30Days: active?.month_users ?? 0 },
    watchesThisWeek: active?.week_watches ?? 0,
    mostWatchedThisWeek: titles.map((r) => ({ title: toCatalogItem(r, imageBaseUrl), watchers: r.watchers, watches: r.watches })),
    topLists: await publicLists(em, lists),
    daily: await dailyStats(em, now),
  };
}
