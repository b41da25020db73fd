import { type InferEntity, defineEntity, p } from '@mikro-orm/core';
import { AppUser } from '../accounts/entities.ts';
import { Episode } from '../catalog/entities.ts';
import { Title } from '../catalog/entities.ts';
import type { PlaybackResponse } from './schemas.ts';

export type TPlaybackSessionState = 'playing' | 'paused' | 'stopped' | 'watched';

export const PlaybackSession = defineEntity({
  name: 'PlaybackSession',
  primaryKeys: ['user', 'sessionKey'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    sessionKey: p.text().primary(),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),
    episode: () => p.manyToOne(Episode).updateRule('no action').deleteRule('cascade').nullable(),

    state: p.enum(['playing', 'paused', 'stopped', 'watched']),

    progress: p.double().$type<number>().nullable(),

    lastEventAt: p.bigint('string'),

    scrobbledAt: p.datetime().nullable(),

    updatedAt: p.datetime().defaultRaw(`now()`).index('playback_session_updated'),
  },
});

export type IPlaybackSession = InferEntity<typeof PlaybackSession>;

export const PlaybackEventReceipt = defineEntity({
  name: 'PlaybackEventReceipt',
  primaryKeys: ['user', 'eventId'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    eventId: p.text().primary(),

    response: p.json<PlaybackResponse>(),

    receivedAt: p.datetime().defaultRaw(`now()`).index('playback_event_receipt_received'),
  },
});

export type IPlaybackEventReceipt = InferEntity<typeof PlaybackEventReceipt>;

export const ContinueWatching = defineEntity({
  name: 'ContinueWatching',
  indexes: [
    {
      name: 'continue_watching_user_order',
      where: 'removed_at IS NULL',
      properties: ['user', 'updatedAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'updatedAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
  ],
  uniques: [
    { name: 'continue_watching_user_title', properties: ['user', 'title'] },
  ],
  checks: [
    {
      name: 'continue_watching_progress_check',
      expression: 'progress > (0 precision) AND progress <= (1 precision)',
    },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),
    episode: () => p.manyToOne(Episode).updateRule('no action').deleteRule('cascade').nullable(),

    seasonNumber: p.integer().nullable(),

    episodeNumber: p.integer().nullable(),

    progress: p.double().$type<number>(),

    positionSeconds: p.integer().nullable(),

    durationSeconds: p.integer().nullable(),

    sessionKey: p.text(),

    lastEventAt: p.bigint('string'),

    clientId: p.text().nullable(),

    updatedAt: p.datetime().defaultRaw(`now()`).index('continue_watching_updated'),

    removedAt: p.datetime().nullable(),
  },
});

export type IContinueWatching = InferEntity<typeof ContinueWatching>;
