// The deprecated profile home and the community statistics (`ProfileHome`, `CommunityStats` in the platform OpenAPI document).
import { z } from 'zod';
import { visibleProfileParts } from '../../core/actor-visibility.ts';
import { communityStats } from '../../core/profile/community-stats.ts';
import { profileHome } from '../../core/profile/home.ts';
import { communityStats as communityStatsShape, profileHome as profileHomeShape, userStats as userStatsShape } from '../../core/profile/schemas.ts';
import { userStats } from '../../core/profile/user-stats.ts';
import { platformProcedure, router, type Context } from '../trpc.ts';

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
});
