// Collaborative lists: the owner invites users by username; an invited user accepts (the list then
// shows in their GET /me/lists and they may add, remove and reorder items) or declines by leaving; a
// collaborator leaves, or the owner removes them. `isCollaborative` is true while anyone has accepted.
// The watchlist and externally managed lists take no collaborators (409).
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError, notFound } from '../errors.ts';
import { notifyListInvitation } from '../notifications/list-events.ts';
import { listAccess, ownedList } from './access.ts';
import { listAudience, recordListGone, recordListJoined, recordListWrite } from './changes.ts';

async function refreshCollaborative(tx: EntityManager, listId: string): Promise<void> {
  await query(tx, {
    text: `update list set is_collaborative = exists (select 1 from list_member m where m.list_id = $1 and m.accepted_at is not null), updated_at = now() where id = $1`,
    params: [listId],
  });
}

export type Invitation = { listId: number; username: string; status: 'invited' | 'accepted' };

export async function inviteCollaborator(em: EntityManager, ownerId: string, listId: number, username: string): Promise<Invitation> {
  return transaction(em, async (tx) => {
    const list = await ownedList(tx, listId, ownerId);
    if (list.isWatchlist || list.kind === 'external') throw new ApiError('conflict', 'The watchlist and externally managed lists take no collaborators');
    const [user] = await query<{ id: string; username: string }>(tx, { text: `select id, username from app_user where lower(username) = lower($1)`, params: [username] });
    if (!user) throw notFound(`User ${username}`);
    if (user.id === ownerId) throw new ApiError('conflict', 'The owner of a list cannot be its collaborator');
    const invited = await query(tx, { text: `insert into list_member (list_id, user_id) values ($1, $2) on conflict do nothing returning list_id`, params: [list.id, user.id] });
    if (invited.length) await notifyListInvitation(tx, { listId: list.id, ownerId, inviteeId: user.id });
    const [m] = await query<{ accepted_at: Date | null }>(tx, { text: `select accepted_at from list_member where list_id = $1 and user_id = $2`, params: [list.id, user.id] });
    await recordListWrite(tx, list.id);
    return { listId: Number(list.id), username: user.username, status: m?.accepted_at ? 'accepted' : 'invited' };
  });
}

/** The invited user accepts; accepting twice is not an error. Anyone not invited: 404. */
export async function acceptInvitation(em: EntityManager, userId: string, listId: number): Promise<void> {
  await transaction(em, async (tx) => {
    const list = await listAccess(tx, listId, userId, { lock: true });
    if (list.role === 'collaborator') return;
    if (list.role !== 'invited') throw notFound(`Invitation to list ${listId}`);
    await query(tx, { text: `update list_member set accepted_at = now() where list_id = $1 and user_id = $2`, params: [list.id, userId] });
    await refreshCollaborative(tx, list.id);
    const others = (await listAudience(tx, list.id)).filter((u) => u !== userId);
    await recordListWrite(tx, list.id, { audience: others });
    await recordListJoined(tx, list.id, userId);
  });
}

/**
 * Ends a membership: the owner removes anyone invited or collaborating; a member removes themselves
 * (leaving, or declining an invitation). Anyone else, or a user who is not a member: 404.
 */
export async function removeCollaborator(em: EntityManager, actorId: string, listId: number, username: string): Promise<void> {
  await transaction(em, async (tx) => {
    const list = await listAccess(tx, listId, actorId, { lock: true });
    const [member] = await query<{ user_id: string; accepted_at: Date | null }>(tx, {
      text: `select m.user_id, m.accepted_at from list_member m join app_user u on u.id = m.user_id where m.list_id = $1 and lower(u.username) = lower($2)`,
      params: [list.id, username],
    });
    if (!member || (list.role !== 'owner' && member.user_id !== actorId)) throw notFound(`Collaborator ${username} of list ${listId}`);
    await query(tx, { text: `delete from list_member where list_id = $1 and user_id = $2`, params: [list.id, member.user_id] });
    await refreshCollaborative(tx, list.id);
    await recordListWrite(tx, list.id);
    if (member.accepted_at) await recordListGone(tx, list.id, [member.user_id]);
  });
}

export type PendingInvitation = { listId: number; name: string; ownerUsername: string; invitedAt: string };

export async function pendingInvitations(em: EntityManager, userId: string): Promise<PendingInvitation[]> {
  const rows = await query<{ id: string; name: string; username: string; invited_at: Date }>(em, {
    text: `select l.id, l.name, u.username, m.invited_at from list_member m join list l on l.id = m.list_id join app_user u on u.id = l.owner_id
      where m.user_id = $1 and m.accepted_at is null order by m.invited_at, l.id limit 1000`,
    params: [userId],
  });
  return rows.map((r) => ({ listId: Number(r.id), name: r.name, ownerUsername: r.username, invitedAt: new Date(r.invited_at).toISOString() }));
}
