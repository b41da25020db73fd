// The user's app preferences (GET / PATCH /me/preferences): region, language, spoiler settings and the
// default watched threshold of playback. A user without a row has every default. Each update records
// the whole preferences record as a `preferences` change (resource id: the user id).
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChange } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { invalidRequest } from '../errors.ts';
import { lockUser, preferencesOf, storePreferences, type StoredPreferences } from './repository.ts';
import { DEFAULT_WATCHED_THRESHOLD, type Preferences, type PreferencesUpdate } from './settings-schemas.ts';

const DEFAULTS: StoredPreferences = {
  region: null,
  language: null,
  hide_episode_titles: false,
  hide_overviews: false,
  hide_images: false,
  hide_ratings: false,
  watched_threshold: null,
};

const toPreferences = (r: StoredPreferences): Preferences => ({
  region: r.region,
  language: r.language,
  spoilers: { hideEpisodeTitles: r.hide_episode_titles, hideOverviews: r.hide_overviews, hideImages: r.hide_images, hideRatings: r.hide_ratings },
  watchedThreshold: r.watched_threshold ?? DEFAULT_WATCHED_THRESHOLD,
});

/** A BCP 47 tag in canonical form ("en-us" -> "en-US"), or a 400 naming the field. */
function canonicalLanguage(tag: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (canonical) return canonical;
  } catch {
    // RangeError: not a well-formed language tag.
  }
  throw invalidRequest(`language: "${tag}" is not a BCP 47 language tag (e.g. en-US)`);
}

async function preferencesRow(em: EntityManager, userId: string, lock: boolean): Promise<StoredPreferences> {
  return (await preferencesOf(em, userId, lock)) ?? DEFAULTS;
}

export async function readPreferences(em: EntityManager, userId: string): Promise<Preferences> {
  return toPreferences(await preferencesRow(em, userId, false));
}

/** The watched threshold playback applies when an event carries none: the user's, else the service's. */
export async function watchedThresholdOf(em: EntityManager, userId: string): Promise<number> {
  return (await preferencesRow(em, userId, false)).watched_threshold ?? DEFAULT_WATCHED_THRESHOLD;
}

/** Only the fields given change (within `spoilers` too); null clears a value back to its default. */
export async function updatePreferences(em: EntityManager, userId: string, input: PreferencesUpdate): Promise<Preferences> {
  return transaction(em, async (tx) => {
    // The row lock of the user serialises concurrent updates of one user's preferences, row or no row.
    await lockUser(tx, userId);
    const current = await preferencesRow(tx, userId, true);
    const s = input.spoilers ?? {};
    const next: StoredPreferences = {
      region: input.region === undefined ? current.region : input.region === null ? null : input.region.toUpperCase(),
      language: input.language === undefined ? current.language : input.language === null ? null : canonicalLanguage(input.language),
      hide_episode_titles: s.hideEpisodeTitles ?? current.hide_episode_titles,
      hide_overviews: s.hideOverviews ?? current.hide_overviews,
      hide_images: s.hideImages ?? current.hide_images,
      hide_ratings: s.hideRatings ?? current.hide_ratings,
      watched_threshold: input.watchedThreshold === undefined ? current.watched_threshold : input.watchedThreshold,
    };
    const updated = toPreferences(await storePreferences(tx, userId, next));
    await recordChange(tx, userId, { resource: 'preferences', resourceId: userId, op: 'upsert', data: updated });
    return updated;
  });
}
