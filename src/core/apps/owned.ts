// Apps as their owner manages them on /account/apps: registering one (never official: only the admin
// CLI makes official apps), seeing the ones they own with how many users hold a live grant, and rotating,
// deactivating, activating and deleting them through the same functions as the CLI. An app someone
// else owns, or the CLI made, is not_found here, exactly like an app that does not exist.
import type { EntityManager } from '@mikro-orm/postgresql';
import { activeGrantCounts } from '../connected-apps/service.ts';
import { ApiError, notFound } from '../errors.ts';
import { appsOwnedBy, lockOwnerAndCountApps } from './repository.ts';
import { createApp, deleteApp, rotateSecret, setAppActive, type CreatedApp } from './service.ts';
import type { Scope } from '../schema/apps.ts';

/** Enough for a developer's apps and their test copies; bounds what one account can make. */
export const MAX_APPS_PER_USER = 20;

export type OwnedApp = {
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  confidential: boolean;
  active: boolean;
  /** Users holding a live grant of the app. */
  activeGrants: number;
};

export type Registration = { name: string; redirectUris: string[]; scopes: string[]; confidential: boolean };

async function owned(em: EntityManager, userId: string, clientId?: string): Promise<OwnedApp[]> {
  const rows = await appsOwnedBy(em, userId, clientId);
  const grants = await activeGrantCounts(em, rows.map((r) => r.client_id));
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    redirectUris: r.redirect_uris,
    scopes: r.allowed_scopes,
    confidential: r.confidential,
    active: r.active,
    activeGrants: grants.get(r.client_id) ?? 0,
  }));
}

export function listOwnedApps(em: EntityManager, userId: string): Promise<OwnedApp[]> {
  return owned(em, userId);
}

/** The app when the user owns it; not_found otherwise. */
export async function ownedApp(em: EntityManager, userId: string, clientId: string): Promise<OwnedApp> {
  const [app] = await owned(em, userId, clientId);
  if (!app) throw notFound('app');
  return app;
}

/** Registers an app owned by the user; invalid_request beyond MAX_APPS_PER_USER or for invalid fields. */
export async function registerOwnedApp(em: EntityManager, userId: string, input: Registration): Promise<CreatedApp> {
  return em.transactional(async (tx) => {
    if ((await lockOwnerAndCountApps(tx, userId)) >= MAX_APPS_PER_USER) {
      throw new ApiError('invalid_request', `An account may register at most ${MAX_APPS_PER_USER} apps: delete one you no longer use first`);
    }
    return createApp(tx, {
      name: input.name,
      redirectUris: input.redirectUris,
      // A list, so it is never widened to all 16 (an empty one is refused by the rules).
      scopes: input.scopes,
      confidential: input.confidential,
      official: false,
      ownerId: userId,
    });
  });
}

export async function rotateOwnedAppSecret(em: EntityManager, userId: string, clientId: string): Promise<string> {
  await ownedApp(em, userId, clientId);
  return rotateSecret(em, clientId);
}

export async function setOwnedAppActive(em: EntityManager, userId: string, clientId: string, active: boolean): Promise<void> {
  await ownedApp(em, userId, clientId);
  await setAppActive(em, clientId, active);
}

export async function deleteOwnedApp(em: EntityManager, userId: string, clientId: string): Promise<void> {
  await ownedApp(em, userId, clientId);
  await deleteApp(em, clientId);
}
