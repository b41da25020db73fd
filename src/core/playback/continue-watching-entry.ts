// The Continue Watching entry a user has listed for a title (its unique (user_id, title_id)).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** The id of the user's listed Continue Watching entry of the title, or null. */
export async function continueWatchingIdOf(em: EntityManager, userId: string, titleId: string): Promise<number | null> {
  const row = await db(em)
    .selectFrom('continue_watching')
    .select('id')
    .where('user_id', '=', userId)
    .where('title_id', '=', titleId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}
