// The table of users' collections: the copies of titles they own, by format.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { Title } from './catalog.ts';

export const CollectionItem = defineEntity({
  name: 'CollectionItem',
  indexes: [{ name: 'collection_item_user_page', properties: ['user', 'id'] }],
  uniques: [
    {
      name: 'collection_item_copy',
      properties: ['user', 'title', 'format', 'season'],
    },
  ],
  checks: [
    {
      name: 'collection_item_notes_check',
      expression: 'char_length(notes) <= 500',
    },
    { name: 'collection_item_season_check', expression: 'season >= 1' },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),

    format: p.enum(['dvd', 'bluray', 'uhd_bluray', 'digital', 'vhs', 'hd_dvd', 'laserdisc']),

    season: p.integer().nullable(),
    notes: p.text().default(''),

    addedAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
