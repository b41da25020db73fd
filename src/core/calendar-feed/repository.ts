// The calendar_feed statements. The token is never read or written: only its digest.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** Makes the user's feed, or gives it a new token (the old one stops working); the fetch time starts over. */
export function storeFeedToken(em: EntityManager, userId: string, tokenHash: string) {
  return db(em)
    .insertInto('calendar_feed')
    .values({ user_id: userId, token_hash: tokenHash })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({ token_hash: eb.ref('excluded.token_hash'), created_at: eb.fn<Date>('now'), last_fetched_at: null })),
    )
    .returning(['created_at'])
    .executeTakeFirstOrThrow();
}

export function feedOf(em: EntityManager, userId: string) {
  return db(em).selectFrom('calendar_feed').select(['created_at', 'last_fetched_at']).where('user_id', '=', userId).executeTakeFirst();
}

/** Deletes the user's feed; whether there was one. */
export async function deleteFeedOf(em: EntityManager, userId: string): Promise<boolean> {
  const result = await db(em).deleteFrom('calendar_feed').where('user_id', '=', userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The feed a token digest names, with its user's name (one index lookup); undefined for none. */
export function feedByTokenHash(em: EntityManager, tokenHash: string) {
  return db(em)
    .selectFrom('calendar_feed as f')
    .innerJoin('app_user as u', 'u.id', 'f.user_id')
    .select(['f.user_id', 'u.username'])
    .where('f.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Records a fetch with the current token, unless one was recorded within `withinSeconds`: a calendar
 * app polling often writes the row once a minute at most. The digest guards against a rotation between
 * the lookup and this write (the new token's feed keeps its empty fetch time).
 */
export async function noteFeedFetched(em: EntityManager, userId: string, tokenHash: string, withinSeconds: number): Promise<void> {
  const since = new Date(Date.now() - withinSeconds * 1000);
  await db(em)
    .updateTable('calendar_feed')
    .set((eb) => ({ last_fetched_at: eb.fn<Date>('now') }))
    .where('user_id', '=', userId)
    .where('token_hash', '=', tokenHash)
    .where((eb) => eb.or([eb('last_fetched_at', 'is', null), eb('last_fetched_at', '<', since)]))
    .execute();
}
