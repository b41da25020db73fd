// Connected apps: the apps a user has granted access to, when each was first and last used, and
// revoking one, which deletes every grant, code and token the app holds for the user in one
// transaction (the authorization server and the API stop accepting them at once).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { forgetAppPushDevices } from '../devices/service.ts';
import { notFound } from '../errors.ts';
import { recordRevocation } from '../webhooks/revocation.ts';
import { connectedAppRows, deleteGrantArtifacts, deleteUserAppGrants, liveGrantUserCounts, touchGrantLastUse, upsertGrant } from './repository.ts';

export const connectedApp = z
  .object({
    clientId: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    firstUsedAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime(),
  })
  .meta({ id: 'ConnectedApp' });
export type ConnectedApp = z.infer<typeof connectedApp>;

export type GrantUse = { grantId: string; grantKey: string; userId: string; clientId: string; scopes: string[] };

/** When tokens are issued for a grant: the grant appears in the list, or its last use moves. */
export async function recordGrantUse(em: EntityManager, g: GrantUse): Promise<void> {
  await upsertGrant(em, g);
}

/** When a token of the grant is used on the API; at most one write a minute per grant. */
export async function touchGrant(em: EntityManager, grantId: string): Promise<void> {
  await touchGrantLastUse(em, grantId);
}

/** The user's apps with a grant still standing, most recently used first. */
export async function listConnectedApps(em: EntityManager, userId: string): Promise<ConnectedApp[]> {
  const rows = await connectedAppRows(em, userId);
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    scopes: r.scopes,
    firstUsedAt: new Date(r.first_used_at).toISOString(),
    lastUsedAt: new Date(r.last_used_at).toISOString(),
  }));
}

/**
 * Deletes every grant, code and token the app holds for the user, and its push devices, and tells the
 * app's webhooks; false when it held no grant.
 */
async function revokeGrants(tx: EntityManager, userId: string, clientId: string): Promise<boolean> {
  const grants = await deleteUserAppGrants(tx, userId, clientId);
  if (!grants.length) return false;
  await deleteGrantArtifacts(tx, grants.map((g) => g.grant_id), grants.map((g) => g.grant_key));
  await forgetAppPushDevices(tx, clientId, userId);
  await recordRevocation(tx, userId, clientId);
  return true;
}

/** Revokes everything the app holds for the user. Unknown or never-connected apps are not_found. */
export async function revokeConnectedApp(em: EntityManager, userId: string, clientId: string): Promise<void> {
  await em.transactional(async (tx) => {
    if (!(await revokeGrants(tx, userId, clientId))) throw notFound('connected app');
  });
}

/** Revokes everything the app holds for the user, if anything (an app signing its user out). */
export async function revokeAppGrants(em: EntityManager, userId: string, clientId: string): Promise<void> {
  await em.transactional((tx) => revokeGrants(tx, userId, clientId));
}

/** How many users hold a grant still standing of each app (apps nobody holds are absent). */
export async function activeGrantCounts(em: EntityManager, clientIds: string[]): Promise<Map<string, number>> {
  if (!clientIds.length) return new Map();
  return new Map((await liveGrantUserCounts(em, clientIds)).map((r) => [r.client_id, Number(r.users)]));
}
