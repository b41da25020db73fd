// The deprecated profile home, the community statistics, the user's statistics and the year in review
// (`ProfileHome`, `CommunityStats`, `UserStats`, `YearInReview` in the platform OpenAPI document).
import { z } from 'zod';
import { visibleProfileParts } from '../../core/actor-visibility.ts';
import { communityStats } from '../../core/profile/community-stats.ts';
import { profileHome } from '../../core/profile/home.ts';
import { communityStats as communityStatsShape, profileHome as profileHomeShape, userStats as userStatsShape } from '../../core/profile/schemas.ts';
import { userStats } from '../../core/profile/user-stats.ts';
import { yearInReview } from '../../core/profile/year-in-review.ts';
import { FIRST_YEAR, LAST_YEAR, TOP_GENRES, TOP_TITLES, yearInReview as yearInReviewShape, yearInReviewQuery } from '../../core/profile/year-in-review-schema.ts';
import { allScopesProcedure, platformProcedure, router, type Context } from '../trpc.ts';

/** Deprecated since 2026-11-22T00:00:00Z (RFC 9745 form: @ Unix seconds); removed after the Sunset date (RFC 8594). */
const PROFILE_HOME_DEPRECATED = '@1795305600';
const PROFILE_HOME_SUNSET = 'Tue, 01 Jun 2027 00:00:00 GMT';

function deprecationHeaders(ctx: Context): void {
  const platform = `${ctx.config.baseUrl}/api/platform/v1`;
  ctx.response.headers['Deprecation'] = PROFILE_HOME_DEPRECATED;
  ctx.response.headers['Sunset'] = PROFILE_HOME_SUNSET;
  ctx.response.headers['Link'] = [
    `<${platform}/me/lists>; rel="successor-version"`,
    `<${platform}/me/history>; rel="successor-version"`,
    `<${ctx.config.baseUrl}/docs>; rel="deprecation"; type="text/html"`,
  ].join(', ');
}

export const profileRouter = router({
  home: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/profile/home',
        tags: ['profile'],
        summary: 'Deprecated (Sunset 2027-06-01): the user\'s lists and recent watches; use GET /me/lists and GET /me/history',
        description: 'Needs profile:read. `lists` is empty unless the token also has lists:read, `recentWatchHistory` unless it has history:read.',
        deprecated: true,
        protect: true,
      },
    })
    .input(z.object({}).strict().optional())
    .output(profileHomeShape)
    .query(({ ctx }) => {
      deprecationHeaders(ctx);
      return profileHome(ctx.em, ctx.actor.userId, ctx.config.imageBaseUrl, visibleProfileParts(ctx.actor));
    }),
  communityStats: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/community-stats',
        tags: ['profile'],
        summary: 'Streak, this month\'s watching, weekly challenges and XP, from the user\'s history and ratings',
        description:
          'Needs profile:read. Figures computed from watches (streak, month counts, genres) count only with history:read, from ratings (monthReviews) only with ratings:read; challenges and XP count what the token can read, and are zero without either.',
        protect: true,
      },
    })
    .input(z.object({}).strict().optional())
    .output(communityStatsShape)
    .query(({ ctx }) => communityStats(ctx.em, ctx.actor.userId, new Date(), visibleProfileParts(ctx.actor))),
  stats: platformProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/stats',
        tags: ['profile'],
        summary: 'The user\'s totals, longest streak, and the last 12 months by month, weekday and genre',
        description:
          'Needs profile:read. Figures computed from watches count only with history:read (zero and empty otherwise), `ratings` only with ratings:read (null otherwise). Months and weekdays are UTC; read from the figures kept on write.',
        protect: true,
      },
    })
    .input(z.object({}).strict().optional())
    .output(userStatsShape)
    .query(({ ctx }) => userStats(ctx.em, ctx.actor.userId, new Date(), visibleProfileParts(ctx.actor))),
  yearInReview: allScopesProcedure(['history:read', 'ratings:read'])
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/year-in-review',
        tags: ['profile'],
        summary: 'A calendar year of the user\'s watching: totals, top genres and titles, busiest month, day and weekday, longest streak, first and latest watch',
        description:
          `A token without one of the two scopes gets 403 \`insufficient_scope\` naming the first missing. \`year\` is a UTC calendar year from ${FIRST_YEAR} to ${LAST_YEAR} (default: the current one); the figures are as of now, so the current year counts up to now and a later year is empty. ` +
          `Days, weekdays and months are UTC. Watches count rewatches; \`ratings\` counts ratings given (or last changed) in the year. The busiest day is the date with the most watches (ties: more minutes, then the earlier date), with its weekday; the busiest weekday sums the year's days by weekday; the busiest month sums its days. ` +
          `\`topGenres\` holds up to ${TOP_GENRES} genres, \`topTitles\` up to ${TOP_TITLES} titles by watches (a show counts each episode watch), then minutes. \`longestStreak\` counts only the year's days of a run. ` +
          'A year without a watch answers zeros, empty lists and null for busiestMonth, busiestDay, busiestWeekday, longestStreak, firstWatch and lastWatch. Read from the figures kept on write: the cost does not grow with the history.',
        protect: true,
      },
      limits: ['year-in-review'],
    })
    .input(yearInReviewQuery.optional())
    .output(yearInReviewShape)
    .query(({ ctx, input }) => {
      const now = new Date();
      return yearInReview(ctx.em, ctx.actor.userId, input?.year ?? now.getUTCFullYear(), now, ctx.config.imageBaseUrl);
    }),
});
