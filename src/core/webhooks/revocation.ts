// A user revoking an app's grant is a message to the app's webhooks (`authorization.revoked`). It is
// recorded in the change log in the revoking transaction, so it cannot be lost, and takes its place in
// the user's feed order: after every change the user made before it. Delivery reads grants as they stand
// when it sends, so after it nothing more of the user's goes to the app (repository.ts, pageQuery).
// Only an app with a subscription to the kind gets the row.
import type { EntityManager } from '@mikro-orm/postgresql';
import { changesWritten } from '../changes/written.ts';
import { db } from '../db/query-builder.ts';
import { REVOKED_KIND, REVOKED_RESOURCE } from './kinds.ts';

/**
 * Records the revocation of `clientId` by the user, in the caller's transaction, when the app has a
 * subscription to it. A `delete` with no item before it, so change-log retention lets it go with the
 * period (sync/repository.ts, pruneChangeLogStep).
 */
export async function recordRevocation(tx: EntityManager, userId: string, clientId: string): Promise<void> {
  const k = db(tx);
  await k
    .insertInto('change_log')
    .columns(['user_id', 'resource', 'resource_id', 'op', 'data'])
    .expression(
      k
        .selectNoFrom((eb) => [
          eb.cast(eb.val(userId), 'uuid').as('user_id'),
          eb.val(REVOKED_RESOURCE).as('resource'),
          eb.val(clientId).as('resource_id'),
          eb.val('delete').as('op'),
          eb.cast(eb.lit(null), 'jsonb').as('data'),
        ])
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('webhook_subscription as s')
              .select(eb.lit(1).as('one'))
              .where('s.client_id', '=', clientId)
              .where((eb) => eb(eb.val(REVOKED_KIND), '=', eb.fn.any('s.kinds'))),
          ),
        ),
    )
    .execute();
  changesWritten(tx);
}
