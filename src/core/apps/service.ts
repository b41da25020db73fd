// OAuth client apps: registration by an operator, activation, secret rotation, and the lookups the
// authorization server needs. Rows are read and written with hand-written SQL. Client secrets are shown
// once, when made; only their argon2id hash is stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound, invalidRequest } from '../errors.ts';
import { query } from '../db/sql.ts';
import { forgetAppPushDevices } from '../devices/service.ts';
import { hashSecret, verifySecret } from '../security/argon2.ts';
import { randomBase64url } from '../security/random.ts';
import { checkRedirectUris } from './redirect-uris.ts';
import { checkAllowedScopes, checkAppName } from './rules.ts';
import type { Scope } from './scopes.ts';

/** An app as stored. Column names match OAuth client metadata (`client_id`, `redirect_uris`). */
export type App = {
  client_id: string;
  name: string;
  redirect_uris: string[];
  allowed_scopes: Scope[];
  confidential: boolean;
  /** argon2id hash of the client secret; null for public apps. */
  client_secret_hash: string | null;
  official: boolean;
  /** False once an operator deactivates the app: it gets no new tokens and its tokens stop working. */
  active: boolean;
  created_at: Date;
  updated_at: Date;
  secret_rotated_at: Date | null;
};

export type NewApp = { name: string; redirectUris: readonly string[]; scopes?: readonly string[] | undefined; confidential: boolean; official: boolean };

export type CreatedApp = { client_id: string; client_secret: string | null; allowed_scopes: Scope[] };

// `app_` + 24 base64url characters (18 random bytes): recognisable in logs, safe in URLs.
const newClientId = () => `app_${randomBase64url(18)}`;
// 32 random bytes (256 bits), base64url: 43 characters.
const newClientSecret = () => randomBase64url(32);
const SECRET_MAX = 512;
// The driver hands timestamptz over as text (MikroORM sets it up so); the service speaks Date.
type AppRow = Omit<App, 'created_at' | 'updated_at' | 'secret_rotated_at'> & { created_at: string; updated_at: string; secret_rotated_at: string | null };
const toApp = (row: AppRow): App => ({
  ...row,
  created_at: new Date(row.created_at),
  updated_at: new Date(row.updated_at),
  secret_rotated_at: row.secret_rotated_at === null ? null : new Date(row.secret_rotated_at),
});
const APP_COLUMNS =
  'client_id, name, redirect_uris, allowed_scopes, confidential, client_secret_hash, official, active, created_at, updated_at, secret_rotated_at';

export async function createApp(em: EntityManager, input: NewApp): Promise<CreatedApp> {
  const name = checkAppName(input.name);
  const redirectUris = checkRedirectUris(input.redirectUris);
  const scopes = checkAllowedScopes(input.scopes);
  if (typeof input.confidential !== 'boolean' || typeof input.official !== 'boolean') {
    throw invalidRequest('confidential and official must be true or false');
  }
  const secret = input.confidential ? newClientSecret() : null;
  const [row] = await query<{ client_id: string }>(em, {
    text: `insert into app (client_id, name, redirect_uris, allowed_scopes, confidential, client_secret_hash, official)
           values ($1, $2, $3::text[], $4::text[], $5, $6, $7) returning client_id`,
    params: [newClientId(), name, redirectUris, scopes, input.confidential, secret ? await hashSecret(secret) : null, input.official],
  });
  return { client_id: row!.client_id, client_secret: secret, allowed_scopes: scopes };
}

/** The app, or null when no app has this client id (the OAuth layer answers `unauthorized_client`). */
export async function findApp(em: EntityManager, clientId: string): Promise<App | null> {
  const [row] = await query<AppRow>(em, { text: `select ${APP_COLUMNS} from app where client_id = $1`, params: [clientId] });
  return row ? toApp(row) : null;
}

/**
 * Activates or deactivates an app. Deactivation is read through `findApp(...).active`: the authorization
 * server refuses the app and the resource server refuses its tokens.
 */
export async function setAppActive(em: EntityManager, clientId: string, active: boolean): Promise<App> {
  return em.transactional(async (tx) => {
    const [row] = await query<AppRow>(tx, {
      text: `update app set active = $2, updated_at = now() where client_id = $1 returning ${APP_COLUMNS}`,
      params: [clientId, active],
    });
    if (!row) throw notFound(`app ${JSON.stringify(clientId)}`);
    // Deactivation also revokes for good: grants, codes and tokens of the app are deleted, so
    // re-activating it later does not bring old tokens back.
    if (!active) {
      await query(tx, { text: `delete from oauth_artifact where payload->>'clientId' = $1`, params: [clientId] });
      await query(tx, { text: `delete from app_grant where client_id = $1`, params: [clientId] });
      await forgetAppPushDevices(tx, clientId);
    }
    return toApp(row);
  });
}

/** A new secret for a confidential app; the old one stops working at once. Returns the plain secret. */
export async function rotateSecret(em: EntityManager, clientId: string): Promise<string> {
  const app = await findApp(em, clientId);
  if (!app) throw notFound(`app ${JSON.stringify(clientId)}`);
  if (!app.confidential) throw new ApiError('invalid_request', 'public apps have no client secret to rotate');
  const secret = newClientSecret();
  // `confidential` is part of the condition so this one statement can never give a public app a secret.
  const [row] = await query(em, {
    text: `update app set client_secret_hash = $2, secret_rotated_at = now(), updated_at = now()
           where client_id = $1 and confidential returning client_id`,
    params: [clientId, await hashSecret(secret)],
  });
  if (!row) throw notFound(`app ${JSON.stringify(clientId)}`);
  return secret;
}

/** True when `secret` is the app's current client secret. Always false for public apps. Says nothing of `active`. */
export async function verifyClientSecret(app: Pick<App, 'client_secret_hash'>, secret: string): Promise<boolean> {
  if (!app.client_secret_hash || typeof secret !== 'string' || secret.length === 0 || secret.length > SECRET_MAX) return false;
  return verifySecret(app.client_secret_hash, secret);
}
