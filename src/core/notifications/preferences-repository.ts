// The stored notification preferences: one row per user and kind that the user changed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { NotificationKind } from './kinds.ts';

export function storedPreferences(em: EntityManager, userId: string) {
  return db(em).selectFrom('notification_preference').select(['kind', 'in_app', 'push']).where('user_id', '=', userId).execute();
}

/** Stores the channels given (absent ones keep their stored value, or the default: on); returns the row. */
export function storePreference(em: EntityManager, userId: string, kind: NotificationKind, channels: { inApp?: boolean | undefined; push?: boolean | undefined }) {
  return db(em)
    .insertInto('notification_preference')
    .values({ user_id: userId, kind, in_app: channels.inApp ?? true, push: channels.push ?? true })
    .onConflict((oc) =>
      oc.columns(['user_id', 'kind']).doUpdateSet((eb) => ({
        in_app: channels.inApp ?? eb.ref('notification_preference.in_app'),
        push: channels.push ?? eb.ref('notification_preference.push'),
        updated_at: new Date(),
      })),
    )
    .returning(['kind', 'in_app', 'push'])
    .executeTakeFirstOrThrow();
}
