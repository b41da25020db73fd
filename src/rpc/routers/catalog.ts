// Public catalog: search, discover, trending (the public OpenAPI document).
import { catalogItems, discoverInput, searchInput, trendingInput } from '../../core/catalog/schemas.ts';
import { discoverCatalog, searchCatalog, trendingCatalog } from '../../core/catalog/service.ts';
import { publicProcedure, router, type Context } from '../trpc.ts';

// Everyone gets the same answer: shared caches (CDNs, browsers) may keep it as long as we do.
const deps = (ctx: Context) => {
  if (ctx.catalogCache.seconds > 0) ctx.response.headers['Cache-Control'] = `public, max-age=${ctx.catalogCache.seconds}`;
  return { em: ctx.em, imageBaseUrl: ctx.config.imageBaseUrl, cache: ctx.catalogCache };
};

export const catalogRouter = router({
  search: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/catalog/search', tags: ['catalog'], summary: 'Search titles by name, typo-tolerant, ranked by relevance', protect: false }, limits: ['public-search'] })
    .input(searchInput)
    .output(catalogItems)
    .query(({ ctx, input }) => searchCatalog(deps(ctx), input)),
  discover: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/catalog/discover', tags: ['catalog'], summary: 'Browse titles by type, category, genre, years, language and rating', protect: false }, limits: ['public-discover'] })
    .input(discoverInput)
    .output(catalogItems)
    .query(({ ctx, input }) => discoverCatalog(deps(ctx), input)),
  trending: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/catalog/trending', tags: ['catalog'], summary: 'Titles trending now', protect: false }, limits: ['public-trending'] })
    .input(trendingInput)
    .output(catalogItems)
    .query(({ ctx, input }) => trendingCatalog(deps(ctx), input)),
});
