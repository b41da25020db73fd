// Liking a list the user can see. Liking twice or unliking a list not liked is not an error. The like
// is the liker's data: it is recorded as a `list_likes` change of the liker (data {listId, likedAt}).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { notifyListLiked } from '../notifications/list-events.ts';
import { listAccess } from './access.ts';
import { countLikes, deleteLike, insertLike } from './member-repository.ts';

export type LikeState = { listId: number; isLiked: boolean; likeCount: number };

export async function setLiked(em: EntityManager, userId: string, listId: number, liked: boolean): Promise<LikeState> {
  return transaction(em, async (tx) => {
    const list = await listAccess(tx, listId, userId);
    if (liked) {
      const likedAt = await insertLike(tx, list.id, userId);
      if (likedAt) {
        await recordChange(tx, userId, { resource: 'list_likes', resourceId: list.id, op: 'upsert', data: { listId: Number(list.id), likedAt: likedAt.toISOString() } });
        await notifyListLiked(tx, { listId: list.id, ownerId: list.ownerId, likerId: userId, likerInsider: list.insider });
      }
    } else if (await deleteLike(tx, list.id, userId)) {
      await recordChange(tx, userId, { resource: 'list_likes', resourceId: list.id, op: 'delete', data: null });
    }
    return { listId: Number(list.id), isLiked: liked, likeCount: await countLikes(tx, list.id) };
  });
}
