// OAuth client apps as stored: the app statements of apps/, and what deactivating an app deletes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/entities.ts';
import type { Scope } from './scopes.ts';

const APP_COLUMNS = [
  'client_id', 'name', 'redirect_uris', 'allowed_scopes', 'confidential', 'client_secret_hash', 'official', 'active', 'created_at', 'updated_at',
  'secret_rotated_at',
] as const;

export async function insertApp(
  em: EntityManager,
  app: { clientId: string; name: string; redirectUris: string[]; scopes: Scope[]; confidential: boolean; secretHash: string | null; official: boolean },
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
    })
    .returning('client_id')
    .executeTakeFirstOrThrow();
  return row.client_id;
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
