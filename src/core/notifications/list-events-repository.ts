// The statement of the list-event notifications (list-events.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** The list's name and the user's names (and whether their profile is private), for the notification's text. */
export function selectListAndUser(tx: EntityManager, listId: string, userId: string) {
  return db(tx)
    .selectFrom(['list as l', 'app_user as u'])
    .select(['l.name as list_name', 'u.username', 'u.display_name', 'u.profile_privacy'])
    .where('l.id', '=', listId)
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow();
}
