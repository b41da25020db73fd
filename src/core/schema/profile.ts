// The table of users' app preferences.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const UserPreferences = defineEntity({
  name: 'UserPreferences',
  checks: [
    {
      name: 'user_preferences_language_check',
      expression: '(char_length(language) >= 2) AND (char_length(language) <= 35)',
    },
    {
      name: 'user_preferences_region_check',
      expression: 'region ~ \'^[A-Z]{2}$\'::text',
    },
    {
      name: 'user_preferences_watched_threshold_check',
      expression: 'watched_threshold >= (0.5 precision) AND watched_threshold <= (1 precision)',
    },
  ],
  properties: {
    user: () => p.oneToOne(AppUser).owner().primary().updateRule('no action'),

    region: p.text().nullable(),

    language: p.text().nullable(),
    hideEpisodeTitles: p.boolean().default(false),
    hideOverviews: p.boolean().default(false),
    hideImages: p.boolean().default(false),
    hideRatings: p.boolean().default(false),

    watchedThreshold: p.double().$type<number>().nullable(),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
