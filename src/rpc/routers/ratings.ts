// Ratings, favourites and statuses ("planning" is the status `planned`): writes with ratings:write,
// the page-envelope reads with ratings:read.
import { z } from 'zod';
import { entryId, favouritesQuery, rateInput, ratingsQuery, statusesQuery, statusInput, titleInput, titlePath, titleType } from '../../core/library/inputs.ts';
import type { LibraryList, PageFilters } from '../../core/library/items-repository.ts';
import { KINDS, libraryItem, libraryPage } from '../../core/library/library-items.ts';
import { chooseStatus, markFavourite, rate, unrate } from '../../core/library/ratings-actions.ts';
import { platformProcedure, router, type Context } from '../trpc.ts';

const RATE_DOC = 'The scope follows from what is named: a movie is `title`, a show `series`, with `season` a season, with `season` and `episode` an episode. Rating again replaces the rating (same id).';
const STATUS_DOC = `Shows: planned, watching, paused, completed, dropped; movies: planned, completed. \`planned\` is the planning list. Logged watches move statuses up automatically: none or planned -> watching (completed when every aired regular episode is watched), watching -> completed; a movie planned -> completed. Completed and dropped never change automatically; paused resumes only on a watch dated after it was paused.`;
const PAGE_DOC = '`page` is 1-based, `pageSize` 1 to 100 (default 50). `counts` counts each kind (category) under every filter but `type`; `total` under all filters.';

const page = z
  .strictObject({
    items: z.array(libraryItem),
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1),
    hasMore: z.boolean(),
    counts: z.strictObject(Object.fromEntries(KINDS.map((k) => [k, z.number().int().min(0)])) as Record<(typeof KINDS)[number], z.ZodNumber>).describe('Items of each kind under every filter but `type`.'),
  })
  .meta({ id: 'RatingItemsPage' });

const readPage = (ctx: Context & { actor: { userId: string } }, list: LibraryList, input: PageFilters & { page: number; pageSize: number }) =>
  libraryPage(ctx.em, ctx.actor.userId, list, input, input.page, input.pageSize);

const cleared = { type: titleType, movieDbId: z.number().int().min(1) };
const unfavourited = z.strictObject({ ...cleared, isFavourite: z.literal(false) });
const statusCleared = z.strictObject({ ...cleared, showStatus: z.null() });

export const ratingsRouter = router({
  rate: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'POST', path: '/ratings', tags: ['ratings'], summary: 'Rate a movie, a show, a season or an episode (1 to 10)', description: RATE_DOC, protect: true }, errors: ['not_found'] })
    .input(rateInput)
    .output(libraryItem)
    .mutation(({ ctx, input }) => rate(ctx.em, ctx.actor.userId, input)),
  unrate: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'DELETE', path: '/ratings/{id}', tags: ['ratings'], summary: 'Remove a rating', protect: true } })
    .input(z.strictObject({ id: entryId }))
    .output(z.strictObject({ id: z.number().int().min(1), deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await unrate(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, deleted: true as const };
    }),
  favourite: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'POST', path: '/favourites', tags: ['ratings'], summary: 'Mark a title as a favourite (again: no change)', protect: true }, errors: ['not_found'] })
    .input(titleInput)
    .output(libraryItem)
    .mutation(async ({ ctx, input }) => (await markFavourite(ctx.em, ctx.actor.userId, input, true))!),
  unfavourite: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'DELETE', path: '/favourites/{type}/{movieDbId}', tags: ['ratings'], summary: 'Unmark a favourite (not a favourite: no change)', protect: true } })
    .input(titlePath)
    .output(unfavourited)
    .mutation(async ({ ctx, input }) => {
      await markFavourite(ctx.em, ctx.actor.userId, input, false);
      return { type: input.type, movieDbId: input.movieDbId, isFavourite: false as const };
    }),
  setStatus: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'PUT', path: '/show-status/{type}/{movieDbId}', tags: ['ratings'], summary: 'Set the status of a show (or planned / completed of a movie); `planned` is planning', description: STATUS_DOC, protect: true } })
    .input(statusInput)
    .output(libraryItem)
    .mutation(async ({ ctx, input }) => (await chooseStatus(ctx.em, ctx.actor.userId, input, input.status))!),
  clearStatus: platformProcedure('ratings:write')
    .meta({ openapi: { method: 'DELETE', path: '/show-status/{type}/{movieDbId}', tags: ['ratings'], summary: 'Clear the status of a title', protect: true } })
    .input(titlePath)
    .output(statusCleared)
    .mutation(async ({ ctx, input }) => {
      await chooseStatus(ctx.em, ctx.actor.userId, input, null);
      return { type: input.type, movieDbId: input.movieDbId, showStatus: null };
    }),
  ratings: platformProcedure('ratings:read')
    .meta({ openapi: { method: 'GET', path: '/me/ratings', tags: ['ratings'], summary: 'The user\'s ratings, most recently changed first', description: PAGE_DOC, protect: true } })
    .input(ratingsQuery)
    .output(page)
    .query(({ ctx, input }) => readPage(ctx, 'ratings', input)),
  favourites: platformProcedure('ratings:read')
    .meta({ openapi: { method: 'GET', path: '/me/favourites', tags: ['ratings'], summary: 'The user\'s favourite titles, most recent first', description: PAGE_DOC, protect: true } })
    .input(favouritesQuery)
    .output(page)
    .query(({ ctx, input }) => readPage(ctx, 'favourites', input)),
  statuses: platformProcedure('ratings:read')
    .meta({ openapi: { method: 'GET', path: '/me/show-statuses', tags: ['ratings'], summary: 'Titles with a status (e.g. `status=planned`: the planning list), most recently changed first', description: PAGE_DOC, protect: true } })
    .input(statusesQuery)
    .output(page)
    .query(({ ctx, input }) => readPage(ctx, 'statuses', input)),
});
