// The community overview (GET /community/overview in the public OpenAPI document).
import { z } from 'zod';
import { communityOverview } from '../../core/community/community-overview.ts';
import { communityOverview as communityOverviewShape, OVERVIEW_LISTS, OVERVIEW_TITLES } from '../../core/community/schemas.ts';
import { publicProcedure, router } from '../trpc.ts';

const DOC = `Computed from every user's watch history and list likes: active users over the last 7 and 30 days, watches over the last 7 days (a rolling week, by the time watched), the ${OVERVIEW_TITLES} titles with the most watchers this week (catalog items with \`watchers\` and \`watches\`) and the ${OVERVIEW_LISTS} public lists with the most likes (list summaries with \`likeCount\`; lists of private profiles are left out). Each instance keeps the answer in memory for CATALOG_CACHE_SECONDS (default 60) and says so with Cache-Control; \`generatedAt\` is when it was computed.`;

export const communityRouter = router({
  overview: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/community/overview', tags: ['community'], summary: 'Community-wide figures: active users, this week\'s watches, most watched titles, top lists', description: DOC, protect: false }, limits: ['public-overview'] })
    .input(z.strictObject({}).optional())
    .output(communityOverviewShape)
    .query(({ ctx }) => {
      if (ctx.catalogCache.seconds > 0) ctx.response.headers['Cache-Control'] = `public, max-age=${ctx.catalogCache.seconds}`;
      return ctx.catalogCache.get('community:overview', () => communityOverview(ctx.em, ctx.config.imageBaseUrl, new Date()));
    }),
});
