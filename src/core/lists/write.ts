// Creating, changing and deleting lists. One transaction per write, recorded in the change feed.
// Dynamic and external lists are refreshed right after they are created (and a dynamic list after its
// filters change), so the answer already holds their items; the list-sync job keeps them fresh.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, invalidRequest } from '../errors.ts';
import { ownedList } from './access.ts';
import { listAudience, recordListGone, recordListWrite } from './changes.ts';
import { externalSource, fileUrl, localFile } from './external.ts';
import { listRow, toListShape, type ListShape } from './present.ts';
import type { CreateListInput, UpdateListInput } from './schemas.ts';
import { dynamicFilters } from './schemas.ts';
import { syncList } from './sync.ts';

async function shapeOf(em: EntityManager, listId: string): Promise<ListShape> {
  return toListShape((await listRow(em, listId))!);
}

export async function createList(em: EntityManager, userId: string, input: CreateListInput): Promise<ListShape> {
  const filters = input.dynamicListFilters ? dynamicFilters.parse(input.dynamicListFilters) : null;
  const id = await transaction(em, async (tx) => {
    const [row] = await query<{ id: string }>(tx, {
      text: `insert into list (owner_id, name, description, is_public, kind, dynamic_filters, sync_state)
        values ($1, $2, $3, $4, $5, $6::jsonb, $7) returning id`,
      params: [userId, input.name, input.description, input.isPublic, filters ? 'dynamic' : 'plain', filters ? JSON.stringify(filters) : null, filters ? 'pending' : null],
    });
    const listId = String(row!.id);
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
    const [row] = await query<{ id: string }>(tx, {
      text: `insert into list (owner_id, name, description, is_public, kind, external_source, external_url, sync_state)
        values ($1, $2, $3, $4, 'external', $5, $6, 'pending') returning id`,
      params: [userId, input.name, input.description ?? '', input.isPublic ?? false, input.source, url],
    });
    const listId = String(row!.id);
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
    await query(tx, {
      text: `update list set name = coalesce($2, name), description = coalesce($3, description), is_public = coalesce($4, is_public),
          dynamic_filters = coalesce($5::jsonb, dynamic_filters), sync_state = case when $5::jsonb is not null then 'pending' else sync_state end,
          updated_at = now()
        where id = $1`,
      params: [list.id, input.name ?? null, input.description ?? null, input.isPublic ?? null, filters ? JSON.stringify(filters) : null],
    });
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
    await query(tx, { text: `delete from list where id = $1`, params: [list.id] });
    await recordListGone(tx, list.id, audience);
  });
}
