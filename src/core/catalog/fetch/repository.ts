// The statements of the living catalog's bookkeeping (table catalog_fetch, title.refreshed_at).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { nowShifted } from '../../db/now.ts';
import { db } from '../../db/query-builder.ts';
import type { ProviderRef } from './provider.ts';

export type FetchState = 'missing' | 'invalid' | 'failed';

const inMs = (ms: number) => nowShifted('+', ms / 1000);

/**
 * Takes the title's fetch for `leaseMs`: the attempt count when this caller now holds it; undefined when
 * another holds it or an earlier fetch's retry time has not come (`force`: that wait is skipped).
 */
export async function claimFetch(em: EntityManager, ref: ProviderRef, leaseMs: number, force: boolean): Promise<number | undefined> {
  const row = await db(em)
    .insertInto('catalog_fetch')
    .values({ type: ref.type, movie_db_id: ref.movieDbId, state: 'running', attempts: 1, claimed_until: inMs(leaseMs), retry_at: null, last_error: null })
    .onConflict((oc) =>
      oc
        .columns(['type', 'movie_db_id'])
        .doUpdateSet((eb) => ({ state: 'running', attempts: eb('catalog_fetch.attempts', '+', 1), claimed_until: eb.ref('excluded.claimed_until'), updated_at: sql<Date>`now()` }))
        .where((eb) =>
          eb.or([
            eb.and([eb('catalog_fetch.state', '=', 'running'), eb('catalog_fetch.claimed_until', '<', sql<Date>`now()`)]),
            eb.and([eb('catalog_fetch.state', '<>', 'running'), force ? sql<boolean>`true` : eb('catalog_fetch.retry_at', '<=', sql<Date>`now()`)]),
          ]),
        ),
    )
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

/** Whether another fetch of the title holds it now (as opposed to waiting for its retry time). */
export async function fetchRunningElsewhere(em: EntityManager, ref: ProviderRef): Promise<boolean> {
  const row = await db(em)
    .selectFrom('catalog_fetch')
    .select('state')
    .where('type', '=', ref.type)
    .where('movie_db_id', '=', ref.movieDbId)
    .where('state', '=', 'running')
    .where('claimed_until', '>=', sql<Date>`now()`)
    .executeTakeFirst();
  return row !== undefined;
}

/** The title stored: it counts as refreshed now, and its fetch row goes. */
export async function settleStored(em: EntityManager, ref: ProviderRef): Promise<void> {
  await db(em).updateTable('title').set({ refreshed_at: sql<Date>`now()` }).where('type', '=', ref.type).where('movie_db_id', '=', ref.movieDbId).execute();
  await releaseClaim(em, ref);
}

/** A claim taken for a title that turned out to be stored already: let go, as a stored title's is. */
export async function releaseClaim(em: EntityManager, ref: ProviderRef): Promise<void> {
  await db(em).deleteFrom('catalog_fetch').where('type', '=', ref.type).where('movie_db_id', '=', ref.movieDbId).execute();
}

/** The fetch did not store the title: what happened, and when to try again. */
export async function settleNotStored(em: EntityManager, ref: ProviderRef, state: FetchState, retryInMs: number, error: string | null): Promise<void> {
  await db(em)
    .updateTable('catalog_fetch')
    .set({ state, retry_at: inMs(retryInMs), claimed_until: null, last_error: error, updated_at: sql<Date>`now()` })
    .where('type', '=', ref.type)
    .where('movie_db_id', '=', ref.movieDbId)
    .execute();
}

/** Whether the catalog holds the title (a fetch elsewhere stored it). */
export async function titleStored(em: EntityManager, ref: ProviderRef): Promise<boolean> {
  const row = await db(em).selectFrom('title').select('id').where('type', '=', ref.type).where('movie_db_id', '=', ref.movieDbId).executeTakeFirst();
  return row !== undefined;
}
