// Connected apps: the apps a user has granted access to, when each was first and last used, and
// revoking one, which deletes every grant, code and token the app holds for the user in one
// transaction (the authorization server and the API stop accepting them at once).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { query } from '../db/sql.ts';
import { forgetAppPushDevices } from '../devices/service.ts';
import { notFound } from '../errors.ts';

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
  await query(em, {
    text: `insert into app_grant (grant_id, grant_key, user_id, client_id, scopes) values ($1, $2, $3, $4, $5::text[])
           on conflict (grant_id) do update set scopes = excluded.scopes, last_used_at = now()`,
    params: [g.grantId, g.grantKey, g.userId, g.clientId, g.scopes],
  });
}

/** When a token of the grant is used on the API; at most one write a minute per grant. */
export async function touchGrant(em: EntityManager, grantId: string): Promise<void> {
  await query(em, {
    text: `update app_grant set last_used_at = now() where grant_id = $1 and last_used_at < now() - interval '1 minute'`,
    params: [grantId],
  });
}

type Row = { client_id: string; name: string; scopes: string[]; first_used_at: Date | string; last_used_at: Date | string };

/** The user's apps with a grant still standing, most recently used first. */
export async function listConnectedApps(em: EntityManager, userId: string): Promise<ConnectedApp[]> {
  const rows = await query<Row>(em, {
    text: `with live as (
             select * from app_grant g
             where g.user_id = $1
               and exists (select 1 from oauth_artifact o where o.id = g.grant_key and (o.expires_at is null or o.expires_at > now())))
           select l.client_id, a.name,
                  array(select distinct s from live l2, unnest(l2.scopes) s where l2.client_id = l.client_id order by s) as scopes,
                  min(l.first_used_at) as first_used_at, max(l.last_used_at) as last_used_at
           from live l join app a on a.client_id = l.client_id
           group by l.client_id, a.name
           order by last_used_at desc, l.client_id`,
    params: [userId],
  });
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    scopes: r.scopes,
    firstUsedAt: new Date(r.first_used_at).toISOString(),
    lastUsedAt: new Date(r.last_used_at).toISOString(),
  }));
}

/** Revokes everything the app holds for the user. Unknown or never-connected apps are not_found. */
export async function revokeConnectedApp(em: EntityManager, userId: string, clientId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const grants = await query<{ grant_id: string; grant_key: string }>(tx, {
      text: `delete from app_grant where user_id = $1 and client_id = $2 returning grant_id, grant_key`,
      params: [userId, clientId],
    });
    if (!grants.length) throw notFound('connected app');
    await query(tx, {
      text: `delete from oauth_artifact where grant_id = any($1::text[]) or id = any($2::text[])`,
      params: [grants.map((g) => g.grant_id), grants.map((g) => g.grant_key)],
    });
    await forgetAppPushDevices(tx, clientId, userId);
  });
}
