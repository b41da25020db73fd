// The community statistics, one row per day.
import { defineEntity, p } from '@mikro-orm/core';

export const CommunityDailyStats = defineEntity({
  name: 'CommunityDailyStats',
  checks: [
    {
      name: 'community_daily_stats_active_users_check',
      expression: 'active_users >= 0',
    },
    {
      name: 'community_daily_stats_new_users_check',
      expression: 'new_users >= 0',
    },
    { name: 'community_daily_stats_ratings_check', expression: 'ratings >= 0' },
    { name: 'community_daily_stats_watches_check', expression: 'watches >= 0' },
  ],
  properties: {

    day: p.date().primary(),

    activeUsers: p.integer(),

    watches: p.integer(),

    newUsers: p.integer(),

    ratings: p.integer(),

    computedAt: p.datetime(),
  },
});
