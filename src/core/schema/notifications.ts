// The tables of notifications: the inbox, and each user's choices by kind.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const Notification = defineEntity({
  name: 'Notification',
  indexes: [
    {
      name: 'notification_user_order',
      properties: ['user', 'createdAt', 'id'],
      columns: [
        { name: 'user' },
        { name: 'createdAt', sort: 'DESC' },
        { name: 'id' },
      ],
    },
    {
      name: 'notification_user_unread',
      where: 'read_at IS NULL',
      properties: ['user'],
    },
  ],
  uniques: [
    { name: 'notification_user_dedupe', properties: ['user', 'dedupeKey'] },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    kind: p.enum(['list_invitation', 'list_liked', 'new_episode', 'trophy_earned']),

    title: p.text(),

    body: p.text(),
    data: p.json<Record<string, unknown>>().defaultRaw(`'{}'::jsonb`),

    dedupeKey: p.text().nullable(),

    readAt: p.datetime().nullable(),

    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const NotificationPreference = defineEntity({
  name: 'NotificationPreference',
  primaryKeys: ['user', 'kind'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    kind: p.enum(['list_invitation', 'list_liked', 'new_episode', 'trophy_earned']).primary(),
    inApp: p.boolean().default(true),
    push: p.boolean().default(true),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
