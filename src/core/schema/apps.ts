// The tables of OAuth apps: the registered apps and the grants users gave them.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

/**
 * An OAuth scope an app may be allowed (app.allowed_scopes). The platform's 16 scopes; apps/scopes.ts
 * lists them in the order the platform OpenAPI document shows them, with their descriptions.
 */
export type Scope =
  | 'profile:read'
  | 'history:read'
  | 'history:write'
  | 'lists:read'
  | 'lists:write'
  | 'ratings:read'
  | 'ratings:write'
  | 'collection:read'
  | 'collection:write'
  | 'notifications:read'
  | 'notifications:write'
  | 'trophies:read'
  | 'profile:write'
  | 'playback:read'
  | 'playback:write'
  | 'events:read';

export const App = defineEntity({
  name: 'App',
  // The developer apps page lists a user's apps by owner.
  indexes: [{ name: 'app_owner', properties: ['owner'] }],
  checks: [
    {
      name: 'app_secret_matches_type',
      expression: 'confidential = (client_secret_hash IS NOT NULL)',
    },
  ],
  properties: {

    clientId: p.text().primary(),

    name: p.text(),

    redirectUris: p.array(),

    allowedScopes: p.array().$type<Scope[]>(),

    confidential: p.boolean(),

    clientSecretHash: p.text().nullable(),
    official: p.boolean().default(false),
    active: p.boolean().default(true),

    createdAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),

    secretRotatedAt: p.datetime().nullable(),
    // The user who registered the app on /account/apps; null for apps the admin CLI made. Deleting the
    // user deletes their apps (and, through app_grant, every grant of them).
    owner: () => p.manyToOne(AppUser).nullable().updateRule('no action').deleteRule('cascade'),
  },
});

export const AppGrant = defineEntity({
  name: 'AppGrant',
  indexes: [{ name: 'app_grant_user', properties: ['user', 'client'] }],
  properties: {

    grantId: p.text().primary(),

    grantKey: p.text(),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),
    client: () => p.manyToOne(App).name('client_id').updateRule('no action').deleteRule('cascade'),

    scopes: p.array(),

    firstUsedAt: p.datetime().defaultRaw(`now()`),

    lastUsedAt: p.datetime().defaultRaw(`now()`),
  },
});
