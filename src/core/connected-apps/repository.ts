// The statements of connected apps: the app_grant rows (schema/apps.ts) that list a user's apps, and
// what revoking one deletes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** A new grant, or the grant's scopes and last use when it is known. */
export async function upsertGrant(em: EntityManager, g: { grantId: string; grantKey: string; userId: string; clientId: string; scopes: string[] }): Promise<void> {
  await db(em)
    .insertInto('app_grant')
    .values({ grant_id: g.grantId, grant_key: g.grantKey, user_id: g.userId, client_id: g.clientId, scopes: g.scopes })
    .onConflict((oc) => oc.column('grant_id').doUpdateSet((eb) => ({ scopes: eb.ref('excluded.scopes'), last_used_at: eb.fn<Date>('now') })))
    .execute();
}

/** Moves the grant's last use to now, unless it moved less than a minute ago. */
export async function touchGrantLastUse(em: EntityManager, grantId: string): Promise<void> {
  await db(em)
    .updateTable('app_grant')
    .set((eb) => ({ last_used_at: eb.fn<Date>('now') }))
    .where('grant_id', '=', grantId)
    // make_interval(years, months, weeks, days, hours, mins): a minute; typed Date for the builder's `-`.
    .where((eb) => eb('last_used_at', '<', eb(eb.fn<Date>('now'), '-', eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(1)]))))
    .execute();
}

/** Grants (as `g`) still standing: their Grant artifact is unexpired. */
function liveGrants(em: EntityManager) {
  return db(em)
    .selectFrom('app_grant as g')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('oauth_artifact as o')
          .select(eb.lit(1).as('one'))
          .whereRef('o.id', '=', 'g.grant_key')
          .where((eb) => eb.or([eb('o.expires_at', 'is', null), eb('o.expires_at', '>', eb.fn<Date>('now'))])),
      ),
    );
}

/** For each of these apps with a grant still standing, how many users hold one. */
export function liveGrantUserCounts(em: EntityManager, clientIds: string[]) {
  return liveGrants(em)
    .select((eb) => ['g.client_id', eb.fn.count<string>('g.user_id').distinct().as('users')])
    .where('g.client_id', 'in', clientIds)
    .groupBy('g.client_id')
    .execute();
}

/**
 * The user's apps with a grant still standing (its Grant artifact unexpired), most recently used first:
 * each app's name, the union of its grants' scopes (sorted), its first and last use.
 */
export function connectedAppRows(em: EntityManager, userId: string) {
  return db(em)
    .with('live', () => liveGrants(em).selectAll('g').where('g.user_id', '=', userId))
    .selectFrom('live as l')
    .innerJoin('app as a', 'a.client_id', 'l.client_id')
    .select((eb) => [
      'l.client_id',
      'a.name',
      eb
        .fn<string[]>('array', [
          eb
            .selectFrom('live as l2')
            .select((eb) => eb.fn<string>('unnest', ['l2.scopes']).as('s'))
            .distinct()
            .whereRef('l2.client_id', '=', 'l.client_id')
            .orderBy('s'),
        ])
        .as('scopes'),
      eb.fn.min('l.first_used_at').as('first_used_at'),
      eb.fn.max('l.last_used_at').as('last_used_at'),
    ])
    .groupBy(['l.client_id', 'a.name'])
    .orderBy('last_used_at', 'desc')
    .orderBy('l.client_id')
    .execute();
}

/** Deletes the user's grants of the app; returns them (id and stored key). */
export function deleteUserAppGrants(em: EntityManager, userId: string, clientId: string) {
  return db(em).deleteFrom('app_grant').where('user_id', '=', userId).where('client_id', '=', clientId).returning(['grant_id', 'grant_key']).execute();
}

/** Deletes the codes and tokens of these grants, and the grants' own artifacts (by stored key). Both lists non-empty. */
export async function deleteGrantArtifacts(em: EntityManager, grantIds: string[], grantKeys: string[]): Promise<void> {
  await db(em)
    .deleteFrom('oauth_artifact')
    .where((eb) => eb.or([eb('grant_id', 'in', grantIds), eb('id', 'in', grantKeys)]))
    .execute();
}
