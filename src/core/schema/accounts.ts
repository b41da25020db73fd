// The tables of user accounts: the users (app_user) and their website sign-in sessions.
import { defineEntity, p } from '@mikro-orm/core';

export const AppUser = defineEntity({
  name: 'AppUser',
  uniques: [
    {
      name: 'app_user_username_lower_unique',
      expression: 'CREATE UNIQUE INDEX app_user_username_lower_unique ON public.app_user USING btree (lower(username))',
    },
  ],
  checks: [
    { name: 'app_user_bio_length', expression: 'char_length(bio) <= 500' },
    {
      name: 'app_user_username_format',
      expression: 'username ~ \'^[A-Za-z0-9_.-]{3,32}$\'::text',
    },
  ],
  properties: {

    id: p.uuid().primary().defaultRaw(`gen_random_uuid()`),

    username: p.text(),

    displayName: p.text(),

    avatarUrl: p.text().nullable(),

    passwordHash: p.text(),

    createdAt: p.datetime().defaultRaw(`now()`),
    bio: p.text().default(''),
    profilePrivacy: p.enum(['public', 'private']).default('public'),
  },
});
