// The tables of media-server webhooks: a user's receivers (each a secret URL Plex, Jellyfin and Emby post
// their playback to), the plays each receiver is following, and the recent events whose title the catalog
// did not have.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const MEDIA_SERVER_KINDS = ['plex', 'jellyfin', 'emby'] as const;
export type MediaServerKind = (typeof MEDIA_SERVER_KINDS)[number];

/** The ids a deferred event named its title by (the movie database's, the film database's, the TV database's). */
export type DeferredIds = { movieDbId?: number; filmDbId?: string; tvDbId?: number };

export const MediaServerReceiver = defineEntity({
  name: 'MediaServerReceiver',
  indexes: [{ name: 'media_server_receiver_user', properties: ['user', 'id'] }],
  checks: [
    { name: 'media_server_receiver_label_check', expression: '(char_length(label) >= 1) AND (char_length(label) <= 100)' },
    { name: 'media_server_receiver_account_filter_check', expression: 'char_length(account_filter) <= 200' },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    label: p.text(),

    /** sha256 of the secret in the receiver's URLs (base64url): the secret itself is shown once and never kept. */
    secretHash: p.text().unique('media_server_receiver_secret_hash'),

    /** Only events of this server account (its name or id) count; null: every account the server reports. */
    accountFilter: p.text().nullable(),

    createdAt: p.datetime().defaultRaw(`now()`),

    /** When the current secret was made (at creation, then at each rotation). */
    secretCreatedAt: p.datetime().defaultRaw(`now()`),

    lastEventAt: p.datetime().nullable(),

    plexEvents: p.integer().default(0),

    jellyfinEvents: p.integer().default(0),

    embyEvents: p.integer().default(0),
  },
});

/**
 * A play a receiver follows: one server account playing one item on one player. Media servers send no
 * id of a playback of their own (Emby's session is its client's, across items), so the receiver names
 * each playback itself (`sessionId`, the playback session of the playback module): a start after a stop
 * begins a new one, every other event joins the current one.
 */
export const MediaServerPlay = defineEntity({
  name: 'MediaServerPlay',
  primaryKeys: ['receiver', 'playKey'],
  indexes: [{ name: 'media_server_play_receiver_updated', properties: ['receiver', 'updatedAt'] }],
  properties: {
    receiver: () => p.manyToOne(MediaServerReceiver).primary().updateRule('no action').deleteRule('cascade'),

    /** sha256 of (server kind, server, account, player, item): base64url. */
    playKey: p.text().primary(),

    sessionId: p.text(),

    /** The latest event's name and position: the same again is the server sending it twice. */
    lastFingerprint: p.text(),

    /** Stopped (or scrobbled): the next start begins a new playback. */
    ended: p.boolean().default(false),

    /** The server said this playback was watched (Plex's scrobble, PlayedToCompletion): its stops complete it. */
    watched: p.boolean().default(false),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

/** An event whose title the catalog did not have when it came: kept (the newest few) for the user to see. */
export const MediaServerDeferred = defineEntity({
  name: 'MediaServerDeferred',
  indexes: [{ name: 'media_server_deferred_receiver', properties: ['receiver', 'id'] }],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    receiver: () => p.manyToOne(MediaServerReceiver).updateRule('no action').deleteRule('cascade'),

    kind: p.enum([...MEDIA_SERVER_KINDS]),

    /** The server's own name of the event (media.scrobble, PlaybackStop, playback.stop...). */
    event: p.text(),

    mediaType: p.enum(['movie', 'episode']),

    title: p.text(),

    year: p.integer().nullable(),

    season: p.integer().nullable(),

    episode: p.integer().nullable(),

    ids: p.json<DeferredIds>(),

    receivedAt: p.datetime().defaultRaw(`now()`),
  },
});
