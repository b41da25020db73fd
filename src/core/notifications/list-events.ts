// Notifications produced by list events, called by src/core/lists in the transaction of the write.
import type { EntityManager } from '@mikro-orm/postgresql';
import { selectListAndUser } from './list-events-repository.ts';
import { recordNotification } from './record.ts';

/** The owner invited `inviteeId` to collaborate on the list (a new invitation only, not a repeated one). */
export async function notifyListInvitation(tx: EntityManager, e: { listId: string; ownerId: string; inviteeId: string }): Promise<string | null> {
  const { list_name, username, display_name } = await selectListAndUser(tx, e.listId, e.ownerId);
  return recordNotification(tx, {
    userId: e.inviteeId,
    kind: 'list_invitation',
    title: `${display_name} invited you to a list`,
    body: `${display_name} (@${username}) invited you to collaborate on "${list_name}".`,
    data: { listId: Number(e.listId), listName: list_name, fromUsername: username },
  });
}

/**
 * `likerId` liked a list of `ownerId`. Not for likes of one's own list. Once per liker and list: a like
 * taken back and given again does not notify the owner again (dedupe key). A liker whose profile is
 * private and who is not one of the list's people (`likerInsider`) is not named: "Someone", and
 * `fromUsername` null (docs/decisions.md, "Who sees a private profile").
 */
export async function notifyListLiked(tx: EntityManager, e: { listId: string; ownerId: string; likerId: string; likerInsider: boolean }): Promise<string | null> {
  if (e.likerId === e.ownerId) return null;
  const { list_name, username, display_name, profile_privacy } = await selectListAndUser(tx, e.listId, e.likerId);
  const named = e.likerInsider || profile_privacy === 'public';
  return recordNotification(tx, {
    userId: e.ownerId,
    kind: 'list_liked',
    title: `${named ? display_name : 'Someone'} liked your list`,
    body: named ? `${display_name} (@${username}) liked "${list_name}".` : `Someone liked "${list_name}".`,
    data: { listId: Number(e.listId), listName: list_name, fromUsername: named ? username : null },
    dedupeKey: `list_liked:${e.listId}:${e.likerId}`,
  });
}
