// Mobile push devices of official apps: register or refresh by deviceId, list, remove. Push devices are
// not recorded in the change feed: they belong to one installation of the official app, and the feed is
// readable by third-party apps holding notifications:read.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { pushTarget } from './push-target.ts';
import { deleteAppDevices, deleteDevice, deleteOtherHoldersOfToken, lockPushToken, selectDevices, trimDevices, upsertDevice } from './repository.ts';
import { DEVICES_PER_USER, type PushDevice, type RegisterPushDevice } from './schemas.ts';

const toPushDevice = (r: Awaited<ReturnType<typeof selectDevices>>[number]): PushDevice => ({
  id: String(r.id),
  platform: r.platform,
  provider: r.provider,
  environment: r.environment,
  deviceId: r.device_id,
  deviceName: r.device_name,
  enabled: r.enabled,
  lastSeenAt: new Date(r.last_seen_at).toISOString(),
  createdAt: new Date(r.created_at).toISOString(),
});

/**
 * Registers the device, or refreshes the user's registration with this deviceId (new token, name,
 * environment; enabled again; lastSeenAt now). A token is one device's: a registration elsewhere holding
 * the same token (another deviceId, or another user after an account switch on the phone) is removed.
 */
export async function registerPushDevice(em: EntityManager, actor: Actor, input: RegisterPushDevice): Promise<PushDevice> {
  const { platform, provider } = pushTarget(input.token, input);
  return transaction(em, async (tx) => {
    // Registrations of one token are serialised, so two of them cannot both keep it.
    await lockPushToken(tx, input.token);
    await deleteOtherHoldersOfToken(tx, input.token, actor.userId, input.deviceId);
    const row = await upsertDevice(tx, {
      userId: actor.userId, clientId: actor.clientId, deviceId: input.deviceId, deviceName: input.deviceName ?? null, platform, provider, environment: input.environment, token: input.token,
    });
    // Past the cap, the registrations seen least recently go (devices long gone stop piling up).
    await trimDevices(tx, actor.userId, DEVICES_PER_USER);
    return toPushDevice(row);
  });
}

/** The user's registrations, most recently seen first. */
export async function listPushDevices(em: EntityManager, userId: string): Promise<PushDevice[]> {
  return (await selectDevices(em, userId)).map(toPushDevice);
}

/** Removes one of the user's registrations; another user's, or an unknown id, is 404. */
export async function removePushDevice(em: EntityManager, userId: string, id: number): Promise<void> {
  if (!(await deleteDevice(em, userId, id))) throw notFound(`Push device ${id}`);
}

/**
 * Forgets the push devices an app registered: when the user disconnects it (`userId` given) or an
 * operator deactivates it (every user). A disconnected app must not go on receiving pushes.
 */
export async function forgetAppPushDevices(tx: EntityManager, clientId: string, userId?: string): Promise<void> {
  await deleteAppDevices(tx, clientId, userId);
}
