// The user's own profile (app_user), app preferences (user_preferences) and newest watches, as stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

// -- Profile (app_user)

const PROFILE_COLUMNS = ['id', 'username', 'display_name', 'avatar_url', 'bio', 'profile_privacy', 'created_at'] as const;

/** `lock`: `for update`, inside the caller's transaction. */
export function profileOf(em: EntityManager, userId: string, lock: boolean) {
  return db(em)
    .selectFrom('app_user')
    .select(PROFILE_COLUMNS)
    .where('id', '=', userId)
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** The profile of the user with this username, in any case (the unique index on lower(username) decides). */
export function profileByUsername(em: EntityManager, username: string) {
  return db(em)
    .selectFrom('app_user')
    .select(PROFILE_COLUMNS)
    .where((eb) => eb(eb.fn('lower', ['username']), '=', eb.fn('lower', [eb.val(username)])))
    .executeTakeFirst();
}

export type StoredProfile = NonNullable<Awaited<ReturnType<typeof profileOf>>>;

export function updateProfileColumns(em: EntityManager, userId: string, next: Pick<StoredProfile, 'display_name' | 'avatar_url' | 'bio' | 'profile_privacy'>) {
  return db(em)
    .updateTable('app_user')
    .set({ display_name: next.display_name, avatar_url: next.avatar_url, bio: next.bio, profile_privacy: next.profile_privacy })
    .where('id', '=', userId)
    .returning(PROFILE_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Locks the user's row (`for update`): serialises a user's changes that have no row of their own to lock yet. */
export async function lockUser(em: EntityManager, userId: string): Promise<void> {
  await db(em).selectFrom('app_user').select('id').where('id', '=', userId).forUpdate().execute();
}

// -- Preferences (user_preferences)

const PREFERENCES_COLUMNS = ['region', 'language', 'hide_episode_titles', 'hide_overviews', 'hide_images', 'hide_ratings', 'watched_threshold'] as const;

/** The user's row, or undefined when the user has none (every default). `lock`: `for update`. */
export function preferencesOf(em: EntityManager, userId: string, lock: boolean) {
  return db(em)
    .selectFrom('user_preferences')
    .select(PREFERENCES_COLUMNS)
    .where('user_id', '=', userId)
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

export type StoredPreferences = NonNullable<Awaited<ReturnType<typeof preferencesOf>>>;

/** Writes every column (the row is made when the user has none); returns the row. */
export function storePreferences(em: EntityManager, userId: string, values: StoredPreferences) {
  return db(em)
    .insertInto('user_preferences')
    .values({ user_id: userId, ...values })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet((eb) => ({
        region: eb.ref('excluded.region'),
        language: eb.ref('excluded.language'),
        hide_episode_titles: eb.ref('excluded.hide_episode_titles'),
        hide_overviews: eb.ref('excluded.hide_overviews'),
        hide_images: eb.ref('excluded.hide_images'),
        hide_ratings: eb.ref('excluded.hide_ratings'),
        watched_threshold: eb.ref('excluded.watched_threshold'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .returning(PREFERENCES_COLUMNS)
    .executeTakeFirstOrThrow();
}

// -- Recent watches (watch_history)

/** The user's newest watches, with their titles and episodes (the profile home's and the public profile's). */
export function recentWatches(em: EntityManager, userId: string, limit: number) {
  return db(em)
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select([
      'w.id', 'w.watched_at', 't.movie_db_id', 't.type', 't.name', 't.poster_path', 't.backdrop_path', 'w.season_number', 'w.episode_number',
      'e.name as episode_title',
    ])
    .where('w.user_id', '=', userId)
    .orderBy('w.watched_at', 'desc')
    .orderBy('w.id', 'desc')
    .limit(limit)
    .execute();
}
