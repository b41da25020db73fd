// Liking a list the user can see. Liking twice or unliking a list not liked is not an error. The like
// is the liker's data: it is recorded as a `list_likes` change of the liker (data {listId, likedAt}).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { notifyListLiked } from '../notifications/list-events.ts';
import { listAccess } from './access.ts';

export type LikeState = { listId: number; isLiked: boolean; likeCount: number };

export async function setLiked(em: EntityManager, userId: string, listId: number, liked: boolean): Promise<LikeState> {
  return transaction(em, async (tx) => {
    const list = await listAccess(tx, listId, userId);
    const rows = liked
      ? await query<{ liked_at: Date }>(tx, { text: `insert into list_like (list_id, user_id) values ($1, $2) on conflict do nothing returning liked_at`, params: [list.id, userId] })
      : await query(tx, { text: `delete from list_like where list_id = $1 and user_id = $2 returning list_id`, params: [list.id, userId] });
    if (rows.length) {
      const likedAt = liked ? new Date((rows[0] as { liked_at: Date }).liked_at).toISOString() : null;
      await recordChange(tx, userId, { resource: 'list_likes', resourceId: list.id, op: liked ? 'upsert' : 'delete', data: liked ? { listId: Number(list.id), likedAt } : null });
      if (liked) await notifyListLiked(tx, { listId: list.id, ownerId: list.ownerId, likerId: userId });
    }
    const [c] = await query<{ n: number }>(tx, { text: `select count(*)::int as n from list_like where list_id = $1`, params: [list.id] });
    return { listId: Number(list.id), isLiked: liked, likeCount: c?.n ?? 0 };
  });
}
