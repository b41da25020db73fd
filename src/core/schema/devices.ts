// The table of push devices: where an app delivers a user's notifications.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { App } from './apps.ts';

export const PushDevice = defineEntity({
  name: 'PushDevice',
  uniques: [{ name: 'push_device_user_device', properties: ['user', 'deviceId'] }],
  checks: [
    {
      name: 'push_device_device_id_check',
      expression: '(char_length(device_id) >= 1) AND (char_length(device_id) <= 160)',
    },
    {
      name: 'push_device_device_name_check',
      expression: 'char_length(device_name) <= 100',
    },
    {
      name: 'push_device_token_check',
      expression: '(char_length(token) >= 20) AND (char_length(token) <= 512)',
    },
  ],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    client: () => p.manyToOne(App).name('client_id').updateRule('no action').deleteRule('cascade'),

    deviceId: p.text(),
    deviceName: p.text().default(''),

    platform: p.enum(['ios', 'android']),

    provider: p.enum(['apns', 'fcm', 'expo']),

    environment: p.enum(['development', 'production']),

    token: p.text().unique('push_device_token'),
    enabled: p.boolean().default(true),

    lastSeenAt: p.datetime().defaultRaw(`now()`),

    createdAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
