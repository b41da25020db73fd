// Who may do what with a list. Reading: a public list of a public profile is open to everyone; any other
// list (private, or its owner's profile private) only to its people: its owner, its collaborators and
// users invited to it. To anyone else it does not exist (404), so a private profile's lists look like a
// name that does not exist (docs/decisions.md, "Who sees a private profile"). Items:
// owner and collaborators add, remove and reorder them. Settings, deletion and collaborators: the owner
// only. A caller not allowed a write gets 404 `not_found` too (403 is about a token's access
// to the surface, not about one record: docs/decisions.md, Lists; and the OpenAPI of each write).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../errors.ts';
import { selectListAccess } from './repository.ts';

type ListRole = 'owner' | 'collaborator' | 'invited' | 'viewer';

export type ListAccess = {
  id: string;
  ownerId: string;
  kind: 'plain' | 'dynamic' | 'external';
  isPublic: boolean;
  isWatchlist: boolean;
  role: ListRole;
  /** The list's own people (owner, collaborator, invited): they see each other whatever their profiles' privacy. */
  insider: boolean;
};

/**
 * The list as `userId` may see it, or 404. With `lock`, the list row is locked for the rest of the
 * transaction: every write to a list takes this lock first, so writes to one list run one at a time
 * and the counts recomputed at their end see every item.
 */
export async function listAccess(em: EntityManager, listId: number | string, userId: string | null, opts: { lock?: boolean } = {}): Promise<ListAccess> {
  const row = await selectListAccess(em, String(listId), userId, opts.lock ?? false);
  if (!row) throw notFound(`List ${listId}`);
  const role: ListRole = row.owner_id === userId ? 'owner' : row.accepted_at ? 'collaborator' : row.invited_at ? 'invited' : 'viewer';
  const insider = role !== 'viewer';
  if (!insider && !(row.is_public && row.owner_privacy === 'public')) throw notFound(`List ${listId}`);
  return { id: String(row.id), ownerId: row.owner_id, kind: row.kind, isPublic: row.is_public, isWatchlist: row.is_watchlist, role, insider };
}

/** Owner only (settings, deletion, collaborators); anyone else: 404. */
export async function ownedList(tx: EntityManager, listId: number | string, userId: string): Promise<ListAccess> {
  const list = await listAccess(tx, listId, userId, { lock: true });
  if (list.role !== 'owner') throw notFound(`List ${listId} among the lists you own`);
  return list;
}

/** Owner or collaborator, on a list whose items users manage (not dynamic, not external: 409). */
export async function itemWritableList(tx: EntityManager, listId: number | string, userId: string): Promise<ListAccess> {
  const list = await listAccess(tx, listId, userId, { lock: true });
  if (list.role !== 'owner' && list.role !== 'collaborator') throw notFound(`List ${listId} among the lists you own or collaborate on`);
  assertItemsWritable(list);
  return list;
}

function assertItemsWritable(list: Pick<ListAccess, 'id' | 'kind'>): void {
  if (list.kind === 'dynamic') throw new ApiError('conflict', `List ${list.id} is a dynamic list: its items come from its filters and cannot be written`);
  if (list.kind === 'external') throw new ApiError('conflict', `List ${list.id} is managed by an external source and is read-only`);
}
