// Creating, changing and deleting lists. One transaction per write, recorded in the change feed.
// Dynamic and external lists are refreshed right after they are created (and a dynamic list after its
// filters change), so the answer already holds their items; the list-sync job keeps them fresh.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { ownedList } from './access.ts';
import { listAudience, recordListGone, recordListWrite } from './changes.ts';
import { externalSource, fileUrl, localFile } from './external.ts';
import { listRow, toListShape, type ListShape } from './present.ts';
import { deleteListRow, insertList, updateListSettings } from './repository.ts';
import type { CreateListInput, UpdateListInput } from './schemas.ts';
import { dynamicFilters } from './schemas.ts';
import { syncList } from './sync.ts';

async function shapeOf(em: EntityManager, listId: string): Promise<ListShape> {
  return toListShape((await listRow(em, listId))!);
}

export async function createList(em: EntityManager, userId: string, input: CreateListInput): Promise<ListShape> {
  const filters = input.dynamicListFilters ? dynamicFilters.parse(input.dynamicListFilters) : null;
  const id = await transaction(em, async (tx) => {
    const common = { ownerId: userId, name: input.name, description: input.description, isPublic: input.isPublic };
    const listId = await insertList(tx, filters ? { ...common, kind: 'dynamic', dynamicFilters: filters } : { ...common, kind: 'plain' });
    await recordListWrite(tx, listId);
    return listId;
  });
  if (filters) await syncList(em, id);
  return shapeOf(em, id);
}

export type ExternalListInput = { name: string; description?: string; isPublic?: boolean; source: string; url: string };

/** An externally managed list (operator CLI): read-only through the API, refreshed from its file. */
export async function createExternalList(em: EntityManager, userId: string, input: ExternalListInput): Promise<ListShape> {
  if (!externalSource(input.source)) throw invalidRequest(`unknown external source ${JSON.stringify(input.source)}`);
  let url: string;
  try {
    url = fileUrl(localFile(input.url));
  } catch (err) {
    throw invalidRequest((err as Error).message);
  }
  const id = await transaction(em, async (tx) => {
    const listId = await insertList(tx, {
      ownerId: userId,
      name: input.name,
      description: input.description ?? '',
      isPublic: input.isPublic ?? false,
      kind: 'external',
      externalSource: input.source,
      externalUrl: url,
    });
    await recordListWrite(tx, listId);
    return listId;
  });
  await syncList(em, id);
  return shapeOf(em, id);
}

/** Owner only. Name, description and visibility of any list but an external one; filters of a dynamic one. */
export async function updateList(em: EntityManager, userId: string, input: UpdateListInput): Promise<ListShape> {
  const filters = input.dynamicListFilters ? dynamicFilters.parse(input.dynamicListFilters) : null;
  const resync = await transaction(em, async (tx) => {
    const list = await ownedList(tx, input.id, userId);
    if (list.kind === 'external') throw new ApiError('conflict', `List ${list.id} is managed by an external source and is read-only`);
    if (filters && list.kind !== 'dynamic') throw new ApiError('conflict', `List ${list.id} is not a dynamic list; only dynamic lists have dynamicListFilters`);
    await updateListSettings(tx, list.id, { name: input.name, description: input.description, isPublic: input.isPublic, dynamicFilters: filters });
    await recordListWrite(tx, list.id);
    return filters ? list.id : null;
  });
  if (resync) await syncList(em, resync);
  return shapeOf(em, String(input.id));
}

/** Owner only; the watchlist cannot be deleted (409). */
export async function deleteList(em: EntityManager, userId: string, listId: number): Promise<void> {
  await transaction(em, async (tx) => {
    const list = await ownedList(tx, listId, userId);
    if (list.isWatchlist) throw new ApiError('conflict', 'The watchlist cannot be deleted; remove its items instead');
    const audience = await listAudience(tx, list.id);
    await deleteListRow(tx, list.id);
    await recordListGone(tx, list.id, audience);
  });
}
