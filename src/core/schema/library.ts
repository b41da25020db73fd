// The tables of users' libraries: watch history, ratings, and each title's favourite and show status.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { Episode, Title } from './catalog.ts';

export const WatchHistory = defineEntity({
  name: 'WatchHistory',
  indexes: [
    {
      name: 'watch_history_user_item',
      properties: ['user', 'title', 'episode', 'watchedAt'],
    },
    {
      name: 'watch_history_user_time',
      properties: ['user', 'watchedAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'watchedAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
    {
      name: 'watch_history_watched_at',
      properties: ['watchedAt'],
      include: ['user', 'title'],
    },
  ],
  checks: [
    {
      name: 'watch_history_episode_numbers',
      expression: '(episode_id IS NULL) = (episode_number IS NULL)',
    },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),
    episode: () => p.manyToOne(Episode).updateRule('no action').deleteRule('cascade').nullable(),

    seasonNumber: p.integer().nullable(),

    episodeNumber: p.integer().nullable(),

    watchedAt: p.datetime(),

    runtimeMinutes: p.integer().nullable(),

    source: p.enum(['api', 'sync', 'playback']),

    clientId: p.text().nullable(),

    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const UserRating = defineEntity({
  name: 'UserRating',
  indexes: [
    {
      name: 'user_rating_title',
      where: '(season_number IS NULL) AND (episode_number IS NULL)',
      properties: ['title'],
    },
    {
      // The ratings given in a time range (the community statistics' ratings after `now`).
      name: 'user_rating_user_rated',
      properties: ['user', 'ratedAt'],
    },
    {
      name: 'user_rating_user_time',
      properties: ['user', 'updatedAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'updatedAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
    // The ratings page filtered by scope reads only that scope's ratings, in the page's order.
    {
      name: 'user_rating_user_scope_time',
      properties: ['user', 'scope', 'updatedAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'scope' },
        { name: 'updatedAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
  ],
  uniques: [
    {
      name: 'user_rating_target',
      properties: ['user', 'title', 'scope', 'seasonNumber', 'episodeNumber'],
    },
  ],
  checks: [
    {
      name: 'user_rating_rating_check',
      expression: '(rating >= 1) AND (rating <= 10)',
    },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),

    scope: p.enum(['title', 'series', 'season', 'episode']),

    seasonNumber: p.integer().nullable(),

    episodeNumber: p.integer().nullable(),

    rating: p.integer(),

    ratedAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const UserTitleState = defineEntity({
  name: 'UserTitleState',
  primaryKeys: ['user', 'title'],
  indexes: [
    {
      name: 'user_title_state_favourites',
      where: 'is_favourite',
      properties: ['user', 'favouritedAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'favouritedAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
    {
      name: 'user_title_state_followers',
      where: '(show_status IS NOT NULL) OR is_favourite',
      properties: ['title', 'user'],
    },
    {
      name: 'user_title_state_statuses',
      where: 'show_status IS NOT NULL',
      properties: ['user', 'showStatusAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'showStatusAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
    // The statuses page filtered by status (the planning list is `planned`) reads only that status's rows.
    {
      name: 'user_title_state_status_lists',
      where: 'show_status IS NOT NULL',
      properties: ['user', 'showStatus', 'showStatusAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'showStatus' },
        { name: 'showStatusAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
  ],
  checks: [
    {
      name: 'user_title_state_favourite_time',
      expression: 'is_favourite = (favourited_at IS NOT NULL)',
    },
    {
      name: 'user_title_state_status_time',
      expression: '(show_status IS NULL) = (show_status_at IS NULL)',
    },
  ],
  properties: {

    id: p.bigint('string').autoincrement().generated('identity').unique('user_title_state_id_key'),
    user: () => p.manyToOne(AppUser).primary().updateRule('no action'),
    title: () => p.manyToOne(Title).primary().updateRule('no action'),
    isFavourite: p.boolean().default(false),

    favouritedAt: p.datetime().nullable(),

    showStatus: p.enum(['planned', 'watching', 'paused', 'completed', 'dropped']).nullable(),

    showStatusSetBy: p.enum(['user', 'auto']).nullable(),

    showStatusAt: p.datetime().nullable(),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
