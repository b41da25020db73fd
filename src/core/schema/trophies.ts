// The tables of trophies: the ones each user earned, and where the award job stands in the change log.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const UserTrophy = defineEntity({
  name: 'UserTrophy',
  primaryKeys: ['user', 'trophyId'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),

    trophyId: p.text().primary(),

    earnedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const TrophyCursor = defineEntity({
  name: 'TrophyCursor',
  checks: [{ name: 'trophy_cursor_singleton_check', expression: 'singleton' }],
  properties: {
    singleton: p.boolean().primary().default(true),

    xid: p.unknown().columnType('xid8'),

    changeId: p.bigint('string'),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
