// The push_device statements. The token is written, never read back.
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdLocks } from '../db/advisory-lock.ts';
import { db } from '../db/query-builder.ts';

// Never the token.
const COLUMNS = ['id', 'platform', 'provider', 'environment', 'device_id', 'device_name', 'enabled', 'last_seen_at', 'created_at'] as const;

export type DeviceWrite = {
  userId: string;
  clientId: string;
  deviceId: string;
  /** Absent: '' for a new registration, the stored name for a known one. */
  deviceName: string | null;
  platform: 'ios' | 'android';
  provider: 'apns' | 'fcm' | 'expo';
  environment: 'development' | 'production';
  token: string;
};

/** Takes the transaction-scoped advisory lock of registrations of `token`. */
export async function lockPushToken(tx: EntityManager, token: string): Promise<void> {
  await holdLocks(tx, [`push_token:${token}`]);
}

/** Deletes the registrations holding `token` other than the user's `deviceId`. */
export async function deleteOtherHoldersOfToken(tx: EntityManager, token: string, userId: string, deviceId: string): Promise<void> {
  await db(tx)
    .deleteFrom('push_device')
    .where('token', '=', token)
    .where((eb) => eb.not(eb.and([eb('user_id', '=', userId), eb('device_id', '=', deviceId)])))
    .execute();
}

/** Registers the user's device, or refreshes its registration (enabled again, seen now); returns it. */
export function upsertDevice(tx: EntityManager, d: DeviceWrite) {
  return db(tx)
    .insertInto('push_device')
    .values({
      user_id: d.userId, client_id: d.clientId, device_id: d.deviceId, device_name: d.deviceName ?? '', platform: d.platform, provider: d.provider,
      environment: d.environment, token: d.token,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'device_id']).doUpdateSet((eb) => ({
        client_id: eb.ref('excluded.client_id'),
        device_name: d.deviceName ?? eb.ref('push_device.device_name'),
        platform: eb.ref('excluded.platform'),
        provider: eb.ref('excluded.provider'),
        environment: eb.ref('excluded.environment'),
        token: eb.ref('excluded.token'),
        enabled: true,
        last_seen_at: eb.fn<Date>('now'),
        updated_at: eb.fn<Date>('now'),
      })),
    )
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Past `keep` registrations of the user, the ones seen least recently go. */
export async function trimDevices(tx: EntityManager, userId: string, keep: number): Promise<void> {
  await db(tx)
    .deleteFrom('push_device')
    .where('id', 'in', (eb) => eb.selectFrom('push_device').select('id').where('user_id', '=', userId).orderBy('last_seen_at', 'desc').orderBy('id', 'desc').offset(keep))
    .execute();
}

/** The user's registrations, most recently seen first. */
export function selectDevices(em: EntityManager, userId: string) {
  return db(em).selectFrom('push_device').select(COLUMNS).where('user_id', '=', userId).orderBy('last_seen_at', 'desc').orderBy('id', 'desc').execute();
}

/** Deletes one of the user's registrations; returns whether there was one. */
export async function deleteDevice(em: EntityManager, userId: string, id: number): Promise<boolean> {
  const rows = await db(em).deleteFrom('push_device').where('id', '=', String(id)).where('user_id', '=', userId).returning('id').execute();
  return rows.length > 0;
}

/** Deletes the registrations made through app `clientId`: of one user, or (no `userId`) of every user. */
export async function deleteAppDevices(tx: EntityManager, clientId: string, userId?: string): Promise<void> {
  let q = db(tx).deleteFrom('push_device').where('client_id', '=', clientId);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  await q.execute();
}
