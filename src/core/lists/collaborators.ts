// Collaborative lists: the owner invites users by username; an invited user accepts (the list then
// shows in their GET /me/lists and they may add, remove and reorder items) or declines by leaving; a
// collaborator leaves, or the owner removes them. `isCollaborative` is true while anyone has accepted.
// The watchlist and externally managed lists take no collaborators (409).
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { ApiError, notFound } from '../errors.ts';
import { notifyListInvitation } from '../notifications/list-events.ts';
import { listAccess, ownedList } from './access.ts';
import { listAudience, recordListGone, recordListJoined, recordListWrite } from './changes.ts';
import { refreshCollaborative } from './repository.ts';
import {
  acceptMembership,
  deleteMember,
  insertMember,
  selectMemberByUsername,
  selectMembership,
  selectPendingInvitations,
  selectUserVisibleTo,
} from './member-repository.ts';

export type Invitation = { listId: number; username: string; status: 'invited' | 'accepted' };

export async function inviteCollaborator(em: EntityManager, ownerId: string, listId: number, username: string): Promise<Invitation> {
  return transaction(em, async (tx) => {
    const list = await ownedList(tx, listId, ownerId);
    if (list.isWatchlist || list.kind === 'external') throw new ApiError('conflict', 'The watchlist and externally managed lists take no collaborators');
    // A private profile is found only by someone who already shares a list with it: to anyone else the
    // name answers exactly as one nobody has (docs/decisions.md, "Who sees a private profile").
    const user = await selectUserVisibleTo(tx, username, ownerId);
    if (!user) throw notFound(`User ${username}`);
    if (user.id === ownerId) throw new ApiError('conflict', 'The owner of a list cannot be its collaborator');
    if (await insertMember(tx, list.id, user.id)) await notifyListInvitation(tx, { listId: list.id, ownerId, inviteeId: user.id });
    const m = await selectMembership(tx, list.id, user.id);
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
    await acceptMembership(tx, list.id, userId);
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
    const member = await selectMemberByUsername(tx, list.id, username);
    if (!member || (list.role !== 'owner' && member.user_id !== actorId)) throw notFound(`Collaborator ${username} of list ${listId}`);
    await deleteMember(tx, list.id, member.user_id);
    await refreshCollaborative(tx, list.id);
    await recordListWrite(tx, list.id);
    if (member.accepted_at) await recordListGone(tx, list.id, [member.user_id]);
  });
}

export type PendingInvitation = { listId: number; name: string; ownerUsername: string; invitedAt: string };

export async function pendingInvitations(em: EntityManager, userId: string): Promise<PendingInvitation[]> {
  const rows = await selectPendingInvitations(em, userId);
  return rows.map((r) => ({ listId: Number(r.id), name: r.name, ownerUsername: r.username, invitedAt: new Date(r.invited_at).toISOString() }));
}
