// OAuth client apps as stored: the app statements of apps/, and what deactivating an app deletes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { Scope } from '../schema/apps.ts';

const APP_COLUMNS = [
  'client_id', 'name', 'redirect_uris', 'allowed_scopes', 'confidential', 'client_secret_hash', 'official', 'active', 'created_at', 'updated_at',
  'secret_rotated_at', 'owner_id',
] as const;

export async function insertApp(
  em: EntityManager,
  app: {
    clientId: string; name: string; redirectUris: string[]; scopes: Scope[]; confidential: boolean; secretHash: string | null; official: boolean;
    ownerId: string | null;
  },
): Promise<string> {
  const row = await db(em)
    .insertInto('app')
    .values({
      client_id: app.clientId,
      name: app.name,
      redirect_uris: app.redirectUris,
      allowed_scopes: app.scopes,
      confidential: app.confidential,
      client_secret_hash: app.secretHash,
      official: app.official,
      owner_id: app.ownerId,
    })
    .returning('client_id')
    .executeTakeFirstOrThrow();
  return row.client_id;
}

/**
 * Inserts an official public app under a client id of the service's own choosing, or brings the stored
 * one to these fields: its `active` flag, grants and tokens stay as they are. Nothing is written when the
 * stored app already has them all; true when a row was inserted or changed.
 */
export async function upsertOfficialPublicApp(
  em: EntityManager,
  app: { clientId: string; name: string; redirectUris: string[]; scopes: Scope[] },
): Promise<boolean> {
  const row = await db(em)
    .insertInto('app')
    .values({
      client_id: app.clientId,
      name: app.name,
      redirect_uris: app.redirectUris,
      allowed_scopes: app.scopes,
      confidential: false,
      client_secret_hash: null,
      official: true,
      owner_id: null,
    })
    .onConflict((oc) =>
      oc
        .column('client_id')
        .doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          redirect_uris: eb.ref('excluded.redirect_uris'),
          allowed_scopes: eb.ref('excluded.allowed_scopes'),
          confidential: false,
          client_secret_hash: null,
          official: true,
          owner_id: null,
          updated_at: eb.fn<Date>('now'),
        }))
        .where((eb) =>
          eb.or([
            eb('app.name', 'is distinct from', eb.ref('excluded.name')),
            eb('app.redirect_uris', 'is distinct from', eb.ref('excluded.redirect_uris')),
            eb('app.allowed_scopes', 'is distinct from', eb.ref('excluded.allowed_scopes')),
            eb('app.confidential', 'is distinct from', eb.lit(false)),
            eb('app.official', 'is distinct from', eb.lit(true)),
            eb('app.owner_id', 'is not', null),
          ]),
        ),
    )
    .returning('client_id')
    .executeTakeFirst();
  return row !== undefined;
}

export function appByClientId(em: EntityManager, clientId: string) {
  return db(em).selectFrom('app').select(APP_COLUMNS).where('client_id', '=', clientId).executeTakeFirst();
}

/** The app after the change, or undefined when there is none. */
export function updateAppActive(em: EntityManager, clientId: string, active: boolean) {
  return db(em)
    .updateTable('app')
    .set((eb) => ({ active, updated_at: eb.fn<Date>('now') }))
    .where('client_id', '=', clientId)
    .returning(APP_COLUMNS)
    .executeTakeFirst();
}

/** Deletes every grant, code and token of the app (its artifacts name it in their payload, its grants by column). */
export async function deleteAppArtifactsAndGrants(em: EntityManager, clientId: string): Promise<void> {
  await db(em)
    .deleteFrom('oauth_artifact')
    .where((eb) => eb(eb.ref('payload', '->>').key('clientId'), '=', clientId))
    .execute();
  await db(em).deleteFrom('app_grant').where('client_id', '=', clientId).execute();
}

/** True when the app is confidential and now has this secret hash; `confidential` is part of the condition. */
export async function updateClientSecretHash(em: EntityManager, clientId: string, secretHash: string): Promise<boolean> {
  const row = await db(em)
    .updateTable('app')
    .set((eb) => ({ client_secret_hash: secretHash, secret_rotated_at: eb.fn<Date>('now'), updated_at: eb.fn<Date>('now') }))
    .where('client_id', '=', clientId)
    .where('confidential', '=', true)
    .returning('client_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the app row; its app_grant rows go with it (foreign key). False when there was none. */
export async function deleteAppRow(em: EntityManager, clientId: string): Promise<boolean> {
  const row = await db(em).deleteFrom('app').where('client_id', '=', clientId).returning('client_id').executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the user's row for the rest of the transaction and counts the apps they own, so two
 * registrations at once cannot both pass the per-user cap.
 */
export async function lockOwnerAndCountApps(em: EntityManager, userId: string): Promise<number> {
  await db(em).selectFrom('app_user').select('id').where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
  const row = await db(em).selectFrom('app').select((eb) => eb.fn.countAll<string>().as('n')).where('owner_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The user's apps (one when `clientId` is given), oldest first. The secret hash is left out: no page shows it. */
export function appsOwnedBy(em: EntityManager, userId: string, clientId?: string) {
  let q = db(em)
    .selectFrom('app')
    .select(['client_id', 'name', 'redirect_uris', 'allowed_scopes', 'confidential', 'active'])
    .where('owner_id', '=', userId);
  if (clientId !== undefined) q = q.where('client_id', '=', clientId);
  return q.orderBy('created_at').orderBy('client_id').execute();
}
