// The change log: every write to a user's synced resources, read by the change feed.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const ChangeLog = defineEntity({
  name: 'ChangeLog',
  indexes: [
    {
      name: 'change_log_trophy_follow',
      where: 'resource = ANY (ARRAY[\'history\'::text, \'ratings\'::text, \'lists\'::text, \'list_items\'::text])',
      properties: ['xid', 'id'],
    },
    {
      name: 'change_log_user_item',
      properties: ['user', 'resource', 'resourceId', 'id'],
    },
    { name: 'change_log_user_position', properties: ['user', 'xid', 'id'] },
    // A user's latest changes of one resource, newest first (the Trakt-compatible facade's last activities):
    // a backward scan of the user's own entries, whatever everyone else writes.
    { name: 'change_log_user_resource', properties: ['user', 'resource', 'id'] },
    // Every change in feed order, whoever made it: each webhook subscription reads the log from its own
    // position (core/webhooks/repository.ts), a page of this index whatever its app's users wrote.
    { name: 'change_log_position', properties: ['xid', 'id'] },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),

    xid: p.unknown().columnType('xid8').defaultRaw(`pg_current_xact_id()`),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    resource: p.text(),

    resourceId: p.text(),

    op: p.enum(['upsert', 'delete']),

    data: p.json<Record<string, unknown>>().nullable(),

    changedAt: p.datetime().defaultRaw(`now()`),
  },
});
