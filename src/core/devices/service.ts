// Mobile push devices of official apps: register or refresh by deviceId, list, remove. Push devices are
// not recorded in the change feed: they belong to one installation of the official app, and the feed is
// readable by third-party apps holding notifications:read.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { DEVICES_PER_USER, type PushDevice, type RegisterPushDevice } from './schemas.ts';

type DeviceRow = {
  id: string;
  platform: PushDevice['platform'];
  provider: PushDevice['provider'];
  environment: PushDevice['environment'];
  device_id: string;
  device_name: string;
  enabled: boolean;
  last_seen_at: Date | string;
  created_at: Date | string;
};

// Never the token.
const COLUMNS = 'id, platform, provider, environment, device_id, device_name, enabled, last_seen_at, created_at';

const toPushDevice = (r: DeviceRow): PushDevice => ({
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

const UPSERT = `
insert into push_device (user_id, client_id, device_id, device_name, platform, provider, environment, token)
values ($1, $2, $3, coalesce($4, ''), $5, $6, $7, $8)
on conflict (user_id, device_id) do update set
  client_id = excluded.client_id, device_name = coalesce($4, push_device.device_name), platform = excluded.platform,
  provider = excluded.provider, environment = excluded.environment, token = excluded.token,
  enabled = true, last_seen_at = now(), updated_at = now()
returning ${COLUMNS}`;

// Past the cap, the registrations seen least recently go (devices long gone stop piling up).
const TRIM = `
delete from push_device where id in (
  select id from push_device where user_id = $1 order by last_seen_at desc, id desc offset $2
)`;

/**
 * Registers the device, or refreshes the user's registration with this deviceId (new token, name,
 * environment; enabled again; lastSeenAt now). A token is one device's: a registration elsewhere holding
 * the same token (another deviceId, or another user after an account switch on the phone) is removed.
 */
export async function registerPushDevice(em: EntityManager, actor: Actor, input: RegisterPushDevice): Promise<PushDevice> {
  return transaction(em, async (tx) => {
    // Registrations of one token are serialised, so two of them cannot both keep it.
    await query(tx, { text: `select pg_advisory_xact_lock(hashtextextended('push_token:' || $1, 0))`, params: [input.token] });
    await query(tx, { text: `delete from push_device where token = $1 and not (user_id = $2 and device_id = $3)`, params: [input.token, actor.userId, input.deviceId] });
    const [row] = await query<DeviceRow>(tx, {
      text: UPSERT,
      params: [actor.userId, actor.clientId, input.deviceId, input.deviceName ?? null, input.platform, input.provider, input.environment, input.token],
    });
    await query(tx, { text: TRIM, params: [actor.userId, DEVICES_PER_USER] });
    return toPushDevice(row!);
  });
}

/** The user's registrations, most recently seen first. */
export async function listPushDevices(em: EntityManager, userId: string): Promise<PushDevice[]> {
  const rows = await query<DeviceRow>(em, { text: `select ${COLUMNS} from push_device where user_id = $1 order by last_seen_at desc, id desc`, params: [userId] });
  return rows.map(toPushDevice);
}

/** Removes one of the user's registrations; another user's, or an unknown id, is 404. */
export async function removePushDevice(em: EntityManager, userId: string, id: number): Promise<void> {
  const rows = await query(em, { text: `delete from push_device where id = $1 and user_id = $2 returning id`, params: [id, userId] });
  if (rows.length === 0) throw notFound(`Push device ${id}`);
}

/**
 * Forgets the push devices an app registered: when the user disconnects it (`userId` given) or an
 * operator deactivates it (every user). A disconnected app must not go on receiving pushes.
 */
export async function forgetAppPushDevices(tx: EntityManager, clientId: string, userId?: string): Promise<void> {
  await query(tx, {
    text: `delete from push_device where client_id = $1 and ($2::uuid is null or user_id = $2::uuid)`,
    params: [clientId, userId ?? null],
  });
}
