// The tables of lists: the lists, their items, likes and collaborators.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { Title } from './catalog.ts';

/** One of the posters a list shows (list.preview_posters, written by the migration's list_preview_posters()). */
export type ListPreviewPoster = { posterPath: string; movieDbId: number; type: 'movie' | 'show' };

export const List = defineEntity({
  name: 'List',
  indexes: [
    {
      name: 'list_featured',
      where: 'is_featured AND is_public',
      properties: ['id'],
    },
    { name: 'list_owner', properties: ['owner', 'id'] },
    {
      name: 'list_sync_due',
      where: 'kind <> \'plain\'::text',
      properties: ['lastSyncedAt', 'id'],
      columns: [{ name: 'lastSyncedAt', nulls: 'FIRST' }, { name: 'id' }],
    },
  ],
  uniques: [
    { name: 'list_one_watchlist', where: 'is_watchlist', properties: ['owner'] },
  ],
  checks: [
    {
      name: 'list_dynamic_has_filters',
      expression: '(kind = \'dynamic\'::text) = (dynamic_filters IS NOT NULL)',
    },
    {
      name: 'list_external_has_source',
      expression: '(kind = \'external\'::text) = ((external_source IS NOT NULL) AND (external_url IS NOT NULL))',
    },
    {
      name: 'list_name_check',
      expression: '(char_length(name) >= 1) AND (char_length(name) <= 100)',
    },
    {
      name: 'list_synced_kinds_have_state',
      expression: '(kind = \'plain\'::text) = (sync_state IS NULL)',
    },
    {
      name: 'list_watchlist_is_plain',
      expression: '(NOT is_watchlist) OR (kind = \'plain\'::text)',
    },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    owner: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    name: p.text(),
    description: p.text().default(''),
    isPublic: p.boolean().default(false),
    isWatchlist: p.boolean().default(false),
    isFeatured: p.boolean().default(false),
    isCollaborative: p.boolean().default(false),
    kind: p.enum(['plain', 'dynamic', 'external']).default('plain'),

    dynamicFilters: p.json<Record<string, unknown>>().nullable(),

    syncState: p.enum(['pending', 'syncing', 'synced', 'failed']).nullable(),

    syncStartedAt: p.datetime().nullable(),

    lastSyncedAt: p.datetime().nullable(),

    lastFullSyncedAt: p.datetime().nullable(),

    lastSyncError: p.text().nullable(),

    externalSource: p.text().nullable(),

    externalUrl: p.text().nullable(),
    itemCount: p.integer().default(0),
    movieCount: p.integer().default(0),
    showCount: p.integer().default(0),
    animeCount: p.integer().default(0),

    createdAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),
    previewPosters: p.json<ListPreviewPoster[]>().defaultRaw(`'[]'::jsonb`),
    like: () => p.manyToMany(AppUser).pivotEntity(() => ListLike).joinColumn('list_id').inverseJoinColumn('user_id'),
  },
});

export const ListItem = defineEntity({
  name: 'ListItem',
  indexes: [
    {
      name: 'list_item_order',
      expression: 'CREATE INDEX list_item_order ON public.list_item USING btree (list_id, "position", id)',
      properties: ['list', 'position', 'id'],
    },
    { name: 'list_item_title', properties: ['title', 'list'] },
  ],
  uniques: [{ name: 'list_item_title_unique', properties: ['list', 'title'] }],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    list: () => p.manyToOne(List).updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),

    position: p.bigint('string'),

    addedAt: p.datetime().defaultRaw(`now()`),
    addedBy: () => p.manyToOne(AppUser).name('added_by').updateRule('no action').nullable(),
  },
});

export const ListLike = defineEntity({
  name: 'ListLike',
  primaryKeys: ['list', 'user'],
  properties: {
    list: () => p.manyToOne(List).primary().updateRule('no action'),
    user: () => p.manyToOne(AppUser).primary().updateRule('no action'),

    likedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const ListMember = defineEntity({
  name: 'ListMember',
  primaryKeys: ['list', 'user'],
  indexes: [{ name: 'list_member_user', properties: ['user', 'list'] }],
  properties: {
    list: () => p.manyToOne(List).primary().updateRule('no action'),
    user: () => p.manyToOne(AppUser).primary().updateRule('no action'),

    invitedAt: p.datetime().defaultRaw(`now()`),

    acceptedAt: p.datetime().nullable(),
  },
});
