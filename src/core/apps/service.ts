// OAuth client apps: registration (by an operator with the admin CLI, or by their owner through
// owned.ts), activation, secret rotation, deletion, and the lookups the authorization server needs.
// Rows are read and written through repository.ts. Client secrets are shown once, when made; only their
// argon2id hash is stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound, invalidRequest } from '../errors.ts';
import { forgetAppPushDevices } from '../devices/service.ts';
import { hashSecret, verifySecret } from '../security/argon2.ts';
import { randomBase64url } from '../security/random.ts';
import { checkRedirectUris } from './redirect-uris.ts';
import { appByClientId, deleteAppArtifactsAndGrants, deleteAppRow, insertApp, updateAppActive, updateClientSecretHash } from './repository.ts';
import { checkAllowedScopes, checkAppName } from './rules.ts';
import type { Scope } from '../schema/apps.ts';

/**
 * An app as stored. Column names match OAuth client metadata (`client_id`, `redirect_uris`).
 * `client_secret_hash`: argon2id hash of the client secret; null for public apps. `active`: false once
 * an operator deactivates the app: it gets no new tokens and its tokens stop working. Timestamps are Dates.
 */
export type App = NonNullable<Awaited<ReturnType<typeof appByClientId>>>;

/** `ownerId`: the user registering it on /account/apps; absent for the admin CLI's apps. */
export type NewApp = {
  name: string; redirectUris: readonly string[]; scopes?: readonly string[] | undefined; confidential: boolean; official: boolean;
  ownerId?: string | undefined;
};

export type CreatedApp = { client_id: string; client_secret: string | null; allowed_scopes: Scope[] };

// `app_` + 24 base64url characters (18 random bytes): recognisable in logs, safe in URLs.
const newClientId = () => `app_${randomBase64url(18)}`;
// 32 random bytes (256 bits), base64url: 43 characters.
const newClientSecret = () => randomBase64url(32);
const SECRET_MAX = 512;

export async function createApp(em: EntityManager, input: NewApp): Promise<CreatedApp> {
  const name = checkAppName(input.name);
  const redirectUris = checkRedirectUris(input.redirectUris);
  const scopes = checkAllowedScopes(input.scopes);
  if (typeof input.confidential !== 'boolean' || typeof input.official !== 'boolean') {
    throw invalidRequest('confidential and official must be true or false');
  }
  const secret = input.confidential ? newClientSecret() : null;
  const clientId = await insertApp(em, {
    clientId: newClientId(),
    name,
    redirectUris,
    scopes,
    confidential: input.confidential,
    secretHash: secret ? await hashSecret(secret) : null,
    official: input.official,
    ownerId: input.ownerId ?? null,
  });
  return { client_id: clientId, client_secret: secret, allowed_scopes: scopes };
}

/** The app, or null when no app has this client id (the OAuth layer answers `unauthorized_client`). */
export async function findApp(em: EntityManager, clientId: string): Promise<App | null> {
  return (await appByClientId(em, clientId)) ?? null;
}

/**
 * Activates or deactivates an app. Deactivation is read through `findApp(...).active`: the authorization
 * server refuses the app and the resource server refuses its tokens.
 */
export async function setAppActive(em: EntityManager, clientId: string, active: boolean): Promise<App> {
  return em.transactional(async (tx) => {
    const app = await updateAppActive(tx, clientId, active);
    if (!app) throw notFound(`app ${JSON.stringify(clientId)}`);
    // Deactivation also revokes for good: grants, codes and tokens of the app are deleted, so
    // re-activating it later does not bring old tokens back.
    if (!active) {
      await deleteAppArtifactsAndGrants(tx, clientId);
      await forgetAppPushDevices(tx, clientId);
    }
    return app;
  });
}

/** Deletes the app with every grant, code, token and push device it has, in one transaction. */
export async function deleteApp(em: EntityManager, clientId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await deleteAppArtifactsAndGrants(tx, clientId);
    await forgetAppPushDevices(tx, clientId);
    if (!(await deleteAppRow(tx, clientId))) throw notFound(`app ${JSON.stringify(clientId)}`);
  });
}

/** A new secret for a confidential app; the old one stops working at once. Returns the plain secret. */
export async function rotateSecret(em: EntityManager, clientId: string): Promise<string> {
  const app = await findApp(em, clientId);
  if (!app) throw notFound(`app ${JSON.stringify(clientId)}`);
  if (!app.confidential) throw new ApiError('invalid_request', 'public apps have no client secret to rotate');
  const secret = newClientSecret();
  // `confidential` is part of the condition so this one statement can never give a public app a secret.
  if (!(await updateClientSecretHash(em, clientId, await hashSecret(secret)))) throw notFound(`app ${JSON.stringify(clientId)}`);
  return secret;
}

/** True when `secret` is the app's current client secret. Always false for public apps. Says nothing of `active`. */
export async function verifyClientSecret(app: Pick<App, 'client_secret_hash'>, secret: string): Promise<boolean> {
  if (!app.client_secret_hash || typeof secret !== 'string' || secret.length === 0 || secret.length > SECRET_MAX) return false;
  return verifySecret(app.client_secret_hash, secret);
}
