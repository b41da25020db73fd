// The tables of playback: the sessions in progress, the receipts of events, Continue Watching.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { Episode, Title } from './catalog.ts';

/**
 * The answer to an accepted playback event, kept as its receipt (playback_event_receipt.response) so a
 * repeat of the event answers it again. The wire schema (playback/schemas.ts) describes the same shape.
 */
export type PlaybackResponse = {
  ok: boolean;
  media_type: 'movie' | 'episode';
  movie_db_id: number | null;
  tv_db_id: number | null;
  film_db_id: string | null;
  punchplay_id: string | null;
  deduped: boolean;
  ignored: 'stale_event' | 'dismissed' | 'already_scrobbled' | 'no_progress' | 'no_change' | null;
  season: number | null;
  episode: number | null;
  episode_end: number | null;
  absolute_episode: number | null;
  anime: boolean;
};

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
