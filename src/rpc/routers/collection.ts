// The user's physical and digital collection (GET /me/collection in the platform OpenAPI document; writes: docs/decisions.md, Collection).
import { z } from 'zod';
import { collectionPage as readPage } from '../../core/collection/read.ts';
import {
  addCollectionItemInput,
  collectionItem,
  collectionPage,
  collectionQuery,
  itemId,
  updateCollectionItemInput,
} from '../../core/collection/schemas.ts';
import { addCollectionItem, removeCollectionItem, updateCollectionItem } from '../../core/collection/write.ts';
import { platformProcedure, router } from '../trpc.ts';

const tags = ['collection'];

export const collectionRouter = router({
  list: platformProcedure('collection:read')
    .meta({ openapi: { method: 'GET', path: '/me/collection', tags, summary: 'The collection, newest first, in cursor pages (type filter movie, show or anime)', protect: true } })
    .input(collectionQuery)
    .output(collectionPage)
    .query(({ ctx, input }) => readPage(ctx.em, ctx.actor.userId, input)),
  add: platformProcedure('collection:write')
    .meta({ openapi: { method: 'POST', path: '/me/collection', tags, summary: 'Add a title in a format (and season); adding the same title, format and season again answers the item already there', protect: true }, errors: ['not_found'] })
    .input(addCollectionItemInput)
    .output(collectionItem)
    .mutation(({ ctx, input }) => addCollectionItem(ctx.em, ctx.actor.userId, input)),
  update: platformProcedure('collection:write')
    .meta({ openapi: { method: 'PATCH', path: '/me/collection/{id}', tags, summary: 'Change an item\'s format or notes', protect: true }, errors: ['conflict'] })
    .input(updateCollectionItemInput)
    .output(collectionItem)
    .mutation(({ ctx, input }) => updateCollectionItem(ctx.em, ctx.actor.userId, input)),
  remove: platformProcedure('collection:write')
    .meta({ openapi: { method: 'DELETE', path: '/me/collection/{id}', tags, summary: 'Remove an item from the collection', protect: true } })
    .input(z.strictObject({ id: itemId }))
    .output(z.object({ id: z.number().int(), removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await removeCollectionItem(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, removed: true as const };
    }),
});
