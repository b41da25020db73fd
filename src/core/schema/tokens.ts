// The tables of the OAuth server: its artifacts (tokens, codes, sessions...) and its signing keys.
import { defineEntity, p } from '@mikro-orm/core';

/**
 * An artifact's payload: oidc-provider's (AdapterPayload without its secrets), or a device poll's times
 * (src/oauth/device-polling.ts). Named here are the fields read in SQL or by the resource server.
 */
export type ArtifactPayload = {
  [field: string]: unknown;
  kind?: string;
  format?: string;
  exp?: number;
  accountId?: string;
  clientId?: string;
  grantId?: string;
  scope?: string;
  /** Device polls: the last poll (epoch seconds), the code's interval (seconds), whether it came too soon. */
  at?: number;
  interval?: number;
  tooSoon?: boolean;
};

export const OauthArtifact = defineEntity({
  name: 'OauthArtifact',
  indexes: [
    {
      name: 'oauth_artifact_expires',
      where: 'expires_at IS NOT NULL',
      properties: ['expiresAt'],
    },
    {
      name: 'oauth_artifact_grant',
      where: 'grant_id IS NOT NULL',
      properties: ['grantId'],
    },
    { name: 'oauth_artifact_uid', where: 'uid IS NOT NULL', properties: ['uid'] },
  ],
  uniques: [
    {
      name: 'oauth_artifact_user_code',
      where: 'user_code IS NOT NULL',
      properties: ['userCode'],
    },
  ],
  properties: {

    id: p.text().primary(),

    model: p.text(),

    payload: p.json<ArtifactPayload>(),

    grantId: p.text().nullable(),

    userCode: p.text().nullable(),

    uid: p.text().nullable(),

    expiresAt: p.datetime().nullable(),

    consumedAt: p.datetime().nullable(),

    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const OauthKey = defineEntity({
  name: 'OauthKey',
  properties: {

    kind: p.text().primary(),

    material: p.json(),

    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
