// Trakt's personal lists: /users/{id}/lists (read, create), one list (read, update, delete) and its
// items (read, add, remove). Writes go through the service's list procedures, so the list's access
// rules (owner; collaborators for items), the item limit, the change feed and live events apply as on
// the platform API. Reads Trakt pages by offset (core/lists/offset-pages-repository.ts), or names by
// slug (list-path.ts), come after core/lists/access.ts has said the reader may see the list (those
// routes carry `lists:read`).
import { z } from 'zod';
import { resolveTitles } from '../../core/catalog/resolve.ts';
import { ApiError, notFound } from '../../core/errors.ts';
import { listAccess, type ListAccess } from '../../core/lists/access.ts';
import { itemIdsOfTitles } from '../../core/lists/item-repository.ts';
import { itemPageAt, ownedListPageAt } from '../../core/lists/offset-pages-repository.ts';
import { listRowsWithLikes } from '../../core/lists/repository.ts';
import { standardTitle } from '../ids.ts';
import { listItemsBody, noCounts, parseOr422, resolveBody, type Counts, type Named, type NotFound } from '../list-items-body.ts';
import { isPublicPrivacy, LIST_PRIVACY, traktList } from '../list-present.ts';
import { ownedListId } from '../list-path.ts';
import { MAX_LIMIT, pageOf, paginationHeaders } from '../paging.ts';
import type { TraktCall, TraktRoute } from '../route.ts';
import { pathUser, type PathUser } from '../user-path.ts';

const tag = 'Users';
/** The list procedures take at most this many titles a call. */
const ADD_CHUNK = 100;

const SORT_BY = ['rank', 'added', 'title', 'released', 'runtime', 'popularity', 'percentage', 'votes', 'random', 'my_rating', 'watched', 'collected'] as const;
const settings = {
  description: z.string().max(2000).nullish(),
  privacy: z.enum(LIST_PRIVACY).nullish(),
  // Taken and not kept: the service's lists are unnumbered, uncommented and in their own order.
  display_numbers: z.boolean().nullish(),
  allow_comments: z.boolean().nullish(),
  sort_by: z.enum(SORT_BY).nullish(),
  sort_how: z.enum(['asc', 'desc']).nullish(),
};
const createBody = z.object({ name: z.string().trim().min(1).max(100), ...settings }).loose();
const updateBody = z.object({ name: z.string().trim().min(1).max(100).nullish(), ...settings }).loose();

/** The list the path names among its owner's lists, and the reader's access to it (404 when they may not see it). */
async function pathList(call: TraktCall): Promise<{ owner: PathUser; list: ListAccess }> {
  const owner = await pathUser(call.em, call.actor, call.params.id!, { owners: true });
  const id = await ownedListId(call.em, owner.id, call.params.list_id!);
  if (!id) throw notFound(`List "${call.params.list_id}" of ${owner.username}`);
  return { owner, list: await listAccess(call.em, id, call.actor?.userId ?? null) };
}

/** The list in Trakt's shape, as it is now. */
async function presentList(call: TraktCall, owner: PathUser, listId: string) {
  const [row] = await listRowsWithLikes(call.em, [listId]);
  if (!row) throw notFound(`List ${listId}`);
  return traktList(row, owner, call.config.baseUrl);
}

/** The `list` of an item write's answer. */
async function listState(call: TraktCall, listId: string) {
  const [row] = await listRowsWithLikes(call.em, [listId]);
  return { updated_at: new Date(row!.updated_at).toISOString(), item_count: row!.item_count };
}

/** Only the owner (and, for items, its collaborators) write a list; anyone else is told it does not exist, as the procedures do. */
function assertWriter(list: ListAccess, items: boolean): void {
  if (list.role === 'owner' || (items && list.role === 'collaborator')) return;
  throw notFound(`List ${list.id} among the lists you ${items ? 'own or collaborate on' : 'own'}`);
}

function assertSelf(owner: PathUser): void {
  if (!owner.self) throw new ApiError('access_denied', 'Lists are created for the signed-in user only (users/me)', undefined, 403);
}

/** The item types a path's `type` names (`movie`, `show`, `season`, `episode`, comma-separated). */
function typesOf(text: string | undefined): { movie: boolean; show: boolean } {
  if (text === undefined) return { movie: true, show: true };
  const types = text.split(',');
  if (!types.every((t) => ['movie', 'show', 'season', 'episode'].includes(t))) {
    throw new ApiError('invalid_request', 'type is movie, show, season or episode (or several, comma-separated)', undefined, 422);
  }
  return { movie: types.includes('movie'), show: types.includes('show') };
}

async function listItems(call: TraktCall) {
  const { list } = await pathList(call);
  const page = pageOf(call.query, MAX_LIMIT);
  const types = typesOf(call.params.type);
  const [row] = await listRowsWithLikes(call.em, [list.id]);
  const type = types.movie && types.show ? null : types.movie ? 'movie' : types.show ? 'show' : undefined;
  const { rows, total } = type === undefined ? { rows: [], total: 0 } : await itemPageAt(call.em, list.id, row!.item_count, type, page.offset, page.limit);
  // One statement for the page's titles.
  const titles = await resolveTitles(call.em, rows.map((r) => ({ type: r.type, movieDbId: r.movie_db_id })));
  const body = rows.map((r, i) => ({
    rank: page.offset + i + 1,
    id: Number(r.id),
    listed_at: new Date(r.listed_at).toISOString(),
    notes: null,
    type: r.type,
    [r.type]: titles[i] ? standardTitle(titles[i]) : null,
  }));
  return { body, headers: paginationHeaders(page, total) };
}

const countOf = (named: readonly Named[], status: Map<Named, string>, want: string): Counts => {
  const counts = noCounts();
  for (const n of named) if (status.get(n) === want) counts[n.kind] += 1;
  return counts;
};

export const userListsRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/users/:id/lists',
    summary: 'A user\'s personal lists (public ones unless they are the reader\'s own), oldest first',
    tag,
    auth: 'optional',
    scope: 'lists:read',
    limits: ['lists'],
    paged: true,
    async handle(call) {
      const owner = await pathUser(call.em, call.actor, call.params.id!);
      const page = pageOf(call.query, MAX_LIMIT);
      const { ids, total } = await ownedListPageAt(call.em, owner.id, !owner.self, page.offset, page.limit);
      const rows = await listRowsWithLikes(call.em, ids);
      return { body: rows.map((r) => traktList(r, owner, call.config.baseUrl)), headers: paginationHeaders(page, total) };
    },
  },
  {
    method: 'POST',
    path: '/users/:id/lists',
    summary: 'Create a personal list',
    tag,
    auth: 'required',
    statuses: [201, 422],
    async handle(call) {
      const owner = await pathUser(call.em, call.actor, call.params.id!);
      assertSelf(owner);
      const input = parseOr422(createBody, call.body);
      const created = await call.procedures.platform.lists.create({
        name: input.name,
        description: input.description ?? '',
        isPublic: input.privacy ? isPublicPrivacy(input.privacy) : false,
      });
      return { status: 201, body: await presentList(call, owner, String(created.id)) };
    },
  },
  {
    method: 'GET',
    path: '/users/:id/lists/:list_id',
    summary: 'One personal list, by its id or slug',
    tag,
    auth: 'optional',
    scope: 'lists:read',
    async handle(call) {
      const { owner, list } = await pathList(call);
      return { body: await presentList(call, owner, list.id) };
    },
  },
  {
    method: 'PUT',
    path: '/users/:id/lists/:list_id',
    summary: 'Update a personal list (name, description, privacy)',
    tag,
    auth: 'required',
    scope: 'lists:write',
    statuses: [422],
    async handle(call) {
      const input = parseOr422(updateBody, call.body);
      const { owner, list } = await pathList(call);
      assertWriter(list, false);
      const change = {
        ...(input.name ? { name: input.name } : {}),
        ...(input.description !== undefined && input.description !== null ? { description: input.description } : {}),
        ...(input.privacy ? { isPublic: isPublicPrivacy(input.privacy) } : {}),
      };
      if (Object.keys(change).length) await call.procedures.platform.lists.update({ id: Number(list.id), ...change });
      return { body: await presentList(call, owner, list.id) };
    },
  },
  {
    method: 'DELETE',
    path: '/users/:id/lists/:list_id',
    summary: 'Delete a personal list and its items',
    tag,
    auth: 'required',
    scope: 'lists:write',
    statuses: [204],
    async handle(call) {
      const { list } = await pathList(call);
      await call.procedures.platform.lists.delete({ id: Number(list.id) });
      return {};
    },
  },
  {
    method: 'GET',
    path: '/users/:id/lists/:list_id/items',
    summary: 'A personal list\'s items, in list order',
    tag,
    auth: 'optional',
    scope: 'lists:read',
    paged: true,
    handle: listItems,
  },
  {
    method: 'GET',
    path: '/users/:id/lists/:list_id/items/:type',
    summary: 'A personal list\'s items of a type (movie, show, season, episode; comma-separated), in list order',
    tag,
    auth: 'optional',
    scope: 'lists:read',
    paged: true,
    statuses: [422],
    handle: listItems,
  },
  {
    method: 'POST',
    path: '/users/:id/lists/:list_id/items',
    summary: 'Add movies and shows to a personal list (owner and collaborators)',
    tag,
    auth: 'required',
    scope: 'lists:write',
    statuses: [201, 420, 422],
    async handle(call) {
      const body = parseOr422(listItemsBody, call.body);
      const { list } = await pathList(call);
      assertWriter(list, true);
      const { found, notFound: missing } = await resolveBody(call.em, body);
      const status = new Map<Named, string>();
      for (let start = 0; start < found.length; start += ADD_CHUNK) {
        const chunk = found.slice(start, start + ADD_CHUNK);
        let results;
        try {
          ({ results } = await call.procedures.platform.lists.addItems({ id: Number(list.id), items: chunk.map((n) => ({ type: n.title.type, movieDbId: n.title.movieDbId })) }));
        } catch (err) {
          // A plain list answers conflict only for its item limit (dynamic and external lists for being read-only): Trakt's 420.
          if (err instanceof ApiError && err.code === 'conflict' && list.kind === 'plain') throw new ApiError('conflict', err.message, undefined, 420);
          throw err;
        }
        chunk.forEach((n, i) => status.set(n, results[i]!.status));
      }
      const notFound: NotFound = missing;
      for (const n of found) if (status.get(n) === 'not_found') notFound[n.kind].push(n.sent);
      return {
        status: 201,
        body: { added: countOf(found, status, 'added'), existing: countOf(found, status, 'existing'), not_found: notFound, list: await listState(call, list.id) },
      };
    },
  },
  {
    method: 'POST',
    path: '/users/:id/lists/:list_id/items/remove',
    summary: 'Remove movies and shows from a personal list (owner and collaborators)',
    tag,
    auth: 'required',
    scope: 'lists:write',
    statuses: [422],
    async handle(call) {
      const body = parseOr422(listItemsBody, call.body);
      const { list } = await pathList(call);
      assertWriter(list, true);
      const { found, notFound } = await resolveBody(call.em, body);
      const items = await itemIdsOfTitles(call.em, list.id, found.map((n) => n.title.id));
      const deleted = noCounts();
      const removed = new Set<string>();
      for (const n of found) {
        const itemId = items.get(n.title.id);
        if (itemId === undefined || removed.has(itemId)) {
          notFound[n.kind].push(n.sent);
          continue;
        }
        try {
          await call.procedures.platform.lists.removeItem({ id: Number(list.id), itemId: Number(itemId) });
        } catch (err) {
          // Removed meanwhile by another writer: not found, as Trakt says of a title not in the list.
          if (err instanceof ApiError && err.code === 'not_found') {
            notFound[n.kind].push(n.sent);
            continue;
          }
          throw err;
        }
        removed.add(itemId);
        deleted[n.kind] += 1;
      }
      return { body: { deleted, not_found: notFound, list: await listState(call, list.id) } };
    },
  },
];
