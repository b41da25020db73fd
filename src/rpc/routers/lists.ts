// Lists: create, read, change, delete; items; collaborators; likes; the user's lists and watchlist.
// Scopes: reads lists:read, writes lists:write. A list the caller may not see or change is 404 (see
// src/core/lists/access.ts); item writes on dynamic and external lists are 409 `conflict`.
import { z } from 'zod';
import { acceptInvitation, inviteCollaborator, pendingInvitations, removeCollaborator } from '../../core/lists/collaborators.ts';
import { addListItems, removeListItem, reorderListItems } from '../../core/lists/item-writes.ts';
import { MAX_LIST_ITEMS } from '../../core/lists/items.ts';
import { setLiked } from '../../core/lists/likes.ts';
import { listDetail, listItemsPage, myLists } from '../../core/lists/read.ts';
import {
  addItemsInput, addItemsOutput, createListInput, itemsPage, listDetail as listDetailShape, listId, listShape, myListsPage, PAGE_DEFAULT, PAGE_MAX, pageQuery, updateListInput,
} from '../../core/lists/schemas.ts';
import { ensureWatchlist } from '../../core/lists/watchlist.ts';
import { createList, deleteList, updateList } from '../../core/lists/write.ts';
import { transaction } from '../../core/db/transaction.ts';
import { platformProcedure, router } from '../trpc.ts';
import { wireInt } from '../../core/wire/numbers.ts';

const tags = ['lists'];
const NOT_YOURS = 'A list the caller may not see (private, or its owner\'s profile private, and the caller not its owner, a collaborator or invited) is 404 `not_found`; so is a write the caller may not make.';
const READ_ONLY = 'Dynamic and external lists answer item writes with 409 `conflict`.';
const EMPTY_BODY = 'Send `{}` with Content-Type application/json as the body.';

const itemsLimit = wireInt(1, PAGE_MAX).default(PAGE_DEFAULT);
const detailInput = z.strictObject({ id: listId, itemsCursor: z.string().min(1).max(500).optional(), itemsLimit });
const idInput = z.strictObject({ id: listId });
const usernameInput = z.strictObject({ id: listId, username: z.string().min(1).max(32) });
const likeState = z.object({ listId: z.number().int(), isLiked: z.boolean(), likeCount: z.number().int().min(0) }).strict();

export const listsRouter = router({
  create: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'POST', path: '/lists', tags, protect: true,
        summary: 'Create a list',
        description: '`name` is required (1-100 characters after trimming); `description` (default "", at most 2000) and `isPublic` (default false) are optional. With `dynamicListFilters` the list is dynamic: its items are computed from the filters at once and kept fresh by the list-sync job.',
      },
    })
    .input(createListInput)
    .output(listShape)
    .mutation(({ ctx, input }) => createList(ctx.em, ctx.actor.userId, input)),
  get: platformProcedure('lists:read')
    .meta({
      openapi: {
        method: 'GET', path: '/lists/{id}', tags, protect: true,
        summary: 'A list with one page of its items',
        description: `items are the first \`itemsLimit\` (1-${PAGE_MAX}, default ${PAGE_DEFAULT}) in list order, or the page after \`itemsCursor\`; \`itemsNextCursor\` is present when more follow (keep itemsLimit identical while paging). \`collaborators\` leaves out users whose profile is private unless the caller is the owner, a collaborator or invited. ${NOT_YOURS}`,
      },
    })
    .input(detailInput)
    .output(listDetailShape)
    .query(({ ctx, input }) => listDetail(ctx.em, input.id, ctx.actor.userId, { itemsCursor: input.itemsCursor, itemsLimit: input.itemsLimit })),
  items: platformProcedure('lists:read')
    .meta({
      openapi: {
        method: 'GET', path: '/lists/{id}/items', tags, protect: true,
        summary: 'Page through a list\'s items',
        description: `In list order; \`limit\` 1-${PAGE_MAX} (default ${PAGE_DEFAULT}); follow \`nextCursor\` (absent on the last page) keeping \`limit\` identical (else 400). Cursors are interchangeable with the detail's itemsNextCursor at the same size. A list holds at most ${MAX_LIST_ITEMS} items. ${NOT_YOURS}`,
      },
    })
    .input(z.strictObject({ id: listId, ...pageQuery }))
    .output(itemsPage)
    .query(({ ctx, input }) => listItemsPage(ctx.em, input.id, ctx.actor.userId, { cursor: input.cursor, limit: input.limit })),
  mine: platformProcedure('lists:read')
    .meta({
      openapi: {
        method: 'GET', path: '/me/lists', tags, protect: true,
        summary: 'The user\'s lists (owned, and collaborating after accepting), oldest first',
        description: `\`limit\` 1-${PAGE_MAX} (default ${PAGE_DEFAULT}); follow \`nextCursor\` (absent on the last page) keeping \`limit\` identical (else 400 \`invalid_request\`).`,
      },
      limits: ['lists'],
    })
    .input(z.strictObject(pageQuery).optional())
    .output(myListsPage)
    .query(({ ctx, input }) => myLists(ctx.em, ctx.actor.userId, { cursor: input?.cursor, limit: input?.limit ?? PAGE_DEFAULT })),
  watchlist: platformProcedure('lists:read')
    .meta({
      openapi: {
        method: 'GET', path: '/me/watchlist', tags, protect: true,
        summary: 'The user\'s watchlist (made on first use)',
        description: 'The list detail of the user\'s one watchlist (`isWatchlist` true), made empty if the user has none yet. Its items are written through /lists/{id}/items like any list; adding a title already there is `existing`, never a duplicate. It cannot be deleted (409).',
      },
    })
    .input(z.strictObject({ itemsCursor: z.string().min(1).max(500).optional(), itemsLimit }).optional())
    .output(listDetailShape)
    .query(async ({ ctx, input }) => {
      const id = await transaction(ctx.em, (tx) => ensureWatchlist(tx, ctx.actor.userId));
      return listDetail(ctx.em, Number(id), ctx.actor.userId, { itemsCursor: input?.itemsCursor, itemsLimit: input?.itemsLimit ?? PAGE_DEFAULT });
    }),
  update: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'PATCH', path: '/lists/{id}', tags, protect: true,
        summary: 'Rename, describe, make public or private; change a dynamic list\'s filters',
        description: `Owner only (collaborators and others: 404). External lists: 409; dynamicListFilters on a list that is not dynamic: 409. New filters set the state to pending and recompute the items at once. ${NOT_YOURS}`,
      },
      errors: ['conflict'],
    })
    .input(updateListInput)
    .output(listShape)
    .mutation(({ ctx, input }) => updateList(ctx.em, ctx.actor.userId, input)),
  delete: platformProcedure('lists:write')
    .meta({ openapi: { method: 'DELETE', path: '/lists/{id}', tags, protect: true, summary: 'Delete a list (owner only; the watchlist cannot be deleted: 409)', description: NOT_YOURS }, errors: ['conflict'] })
    .input(idInput)
    .output(z.object({ id: z.number().int(), deleted: z.literal(true) }).strict())
    .mutation(async ({ ctx, input }) => {
      await deleteList(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, deleted: true as const };
    }),
  addItems: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'POST', path: '/lists/{id}/items', tags, protect: true,
        summary: 'Add titles (owner and collaborators)',
        description: `1-100 titles by \`type\` and \`movieDbId\`, appended in order. One result per title: \`added\`, \`existing\` (already in the list; not an error, no duplicate) or \`not_found\`. Past ${MAX_LIST_ITEMS} items: 409. ${READ_ONLY} ${NOT_YOURS}`,
      },
      errors: ['conflict'],
    })
    .input(addItemsInput)
    .output(addItemsOutput)
    .mutation(async ({ ctx, input }) => ({ results: await addListItems(ctx.em, ctx.actor.userId, input.id, input.items) })),
  removeItem: platformProcedure('lists:write')
    .meta({ openapi: { method: 'DELETE', path: '/lists/{id}/items/{itemId}', tags, protect: true, summary: 'Remove an item (owner and collaborators)', description: `An item not in the list: 404. ${READ_ONLY} ${NOT_YOURS}` }, errors: ['conflict'] })
    .input(z.strictObject({ id: listId, itemId: listId }))
    .output(z.object({ id: z.number().int(), removed: z.literal(true) }).strict())
    .mutation(async ({ ctx, input }) => {
      await removeListItem(ctx.em, ctx.actor.userId, input.id, input.itemId);
      return { id: input.itemId, removed: true as const };
    }),
  reorder: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'POST', path: '/lists/{id}/items/reorder', tags, protect: true,
        summary: 'Reorder items (owner and collaborators)',
        description: `The named items move to the front in the order given; the others follow in their current order. Each id once (else 400), each an item of the list (else 404). ${READ_ONLY} ${NOT_YOURS}`,
      },
      errors: ['conflict'],
    })
    .input(z.strictObject({ id: listId, itemIds: z.array(listId).min(1).max(MAX_LIST_ITEMS) }))
    .output(z.object({ reordered: z.number().int() }).strict())
    .mutation(async ({ ctx, input }) => {
      await reorderListItems(ctx.em, ctx.actor.userId, input.id, input.itemIds);
      return { reordered: input.itemIds.length };
    }),
  like: platformProcedure('lists:write')
    .meta({ openapi: { method: 'POST', path: '/lists/{id}/like', tags, protect: true, summary: 'Like a list you can see (liking twice is not an error)', description: `${EMPTY_BODY} ${NOT_YOURS}` } })
    .input(idInput)
    .output(likeState)
    .mutation(({ ctx, input }) => setLiked(ctx.em, ctx.actor.userId, input.id, true)),
  unlike: platformProcedure('lists:write')
    .meta({ openapi: { method: 'DELETE', path: '/lists/{id}/like', tags, protect: true, summary: 'Unlike a list (not liked: not an error)', description: NOT_YOURS } })
    .input(idInput)
    .output(likeState)
    .mutation(({ ctx, input }) => setLiked(ctx.em, ctx.actor.userId, input.id, false)),
  invite: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'POST', path: '/lists/{id}/collaborators', tags, protect: true,
        summary: 'Invite a user by username (owner only)',
        description: `The user accepts with POST /lists/{id}/collaborators/accept. Inviting again is not an error. Unknown user: 404, and so is a user whose profile is private unless the two already share a list (each its owner, a collaborator or invited); the owner, the watchlist or an external list: 409. ${NOT_YOURS}`,
      },
      errors: ['conflict'],
    })
    .input(z.strictObject({ id: listId, username: z.string().min(1).max(32) }))
    .output(z.object({ listId: z.number().int(), username: z.string(), status: z.enum(['invited', 'accepted']) }).strict())
    .mutation(({ ctx, input }) => inviteCollaborator(ctx.em, ctx.actor.userId, input.id, input.username)),
  accept: platformProcedure('lists:write')
    .meta({ openapi: { method: 'POST', path: '/lists/{id}/collaborators/accept', tags, protect: true, summary: 'Accept an invitation to collaborate (not invited: 404)', description: EMPTY_BODY } })
    .input(idInput)
    .output(z.object({ id: z.number().int(), accepted: z.literal(true) }).strict())
    .mutation(async ({ ctx, input }) => {
      await acceptInvitation(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, accepted: true as const };
    }),
  removeCollaborator: platformProcedure('lists:write')
    .meta({
      openapi: {
        method: 'DELETE', path: '/lists/{id}/collaborators/{username}', tags, protect: true,
        summary: 'Remove a collaborator (owner), or leave / decline (the collaborator themselves)',
        description: 'Anyone else, or a user who is neither invited nor collaborating: 404.',
      },
    })
    .input(usernameInput)
    .output(z.object({ id: z.number().int(), username: z.string(), removed: z.literal(true) }).strict())
    .mutation(async ({ ctx, input }) => {
      await removeCollaborator(ctx.em, ctx.actor.userId, input.id, input.username);
      return { id: input.id, username: input.username, removed: true as const };
    }),
  invitations: platformProcedure('lists:read')
    .meta({ openapi: { method: 'GET', path: '/me/list-invitations', tags, protect: true, summary: 'Invitations to collaborate the user has not answered yet' } })
    .input(z.object({}).strict().optional())
    .output(z.object({ items: z.array(z.object({ listId: z.number().int(), name: z.string(), ownerUsername: z.string(), invitedAt: z.string() }).strict()) }).strict())
    .query(async ({ ctx }) => ({ items: await pendingInvitations(ctx.em, ctx.actor.userId) })),
});
