// The statements of outbound webhooks: subscriptions as their owner manages them, the deliverer's lease,
// its page of the change log and its settling of a page, and the delivery log.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { settledHorizon, xid8 } from '../changes/repository.ts';
import { CHANGE_RESOURCES, type ChangeResource } from '../changes/resources.ts';
import { nowShifted } from '../db/now.ts';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
import type { Tables } from '../schema/index.ts';
import { REVOKED_RESOURCE } from './kinds.ts';

/** A position in the change log, (xid8, id) as text: the feed's order. */
export type Position = { xid: string; id: string };

const SUBSCRIPTION_COLUMNS = [
  'id', 'client_id', 'url', 'kinds', 'status', 'paused_reason', 'paused_at', 'failures', 'failing_since',
  'next_attempt_at', 'last_attempt_at', 'last_success_at', 'last_status', 'last_error', 'created_at', 'updated_at',
] as const;

// ---- the owner's subscriptions

/** Locks the app's row for the transaction (so two subscriptions at once cannot both pass the cap) and counts its subscriptions. */
export async function lockAppAndCountSubscriptions(tx: EntityManager, clientId: string): Promise<number> {
  await db(tx).selectFrom('app').select('client_id').where('client_id', '=', clientId).forNoKeyUpdate().executeTakeFirst();
  const row = await db(tx)
    .selectFrom('webhook_subscription')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * A new subscription, starting at the settled horizon: what committed before it is not sent, and a
 * transaction still open as it is made is (it may commit after).
 */
export function insertSubscription(tx: EntityManager, s: { clientId: string; url: string; kinds: string[]; secret: string }) {
  return db(tx)
    .insertInto('webhook_subscription')
    .values({ client_id: s.clientId, url: s.url, kinds: s.kinds, secret: s.secret, cursor_xid: settledHorizon(), cursor_change_id: '0' })
    .returning(SUBSCRIPTION_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** The app's subscriptions (one when `id` is given), oldest first. */
export function subscriptionsOf(em: EntityManager, clientId: string, id?: string) {
  return db(em)
    .selectFrom('webhook_subscription')
    .select(SUBSCRIPTION_COLUMNS)
    .where('client_id', '=', clientId)
    .$if(id !== undefined, (q) => q.where('id', '=', id!))
    .orderBy('id')
    .execute();
}

export type SubscriptionRow = Awaited<ReturnType<typeof subscriptionsOf>>[number];

/** Changes the URL and kinds given; the subscription after, or undefined when the app has no such one. */
export function updateSubscription(em: EntityManager, clientId: string, id: string, set: { url?: string | undefined; kinds?: string[] | undefined }) {
  return db(em)
    .updateTable('webhook_subscription')
    .set((eb) => ({
      ...(set.url !== undefined ? { url: set.url } : {}),
      ...(set.kinds !== undefined ? { kinds: set.kinds } : {}),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .returning(SUBSCRIPTION_COLUMNS)
    .executeTakeFirst();
}

export async function deleteSubscription(em: EntityManager, clientId: string, id: string): Promise<boolean> {
  const row = await db(em).deleteFrom('webhook_subscription').where('client_id', '=', clientId).where('id', '=', id).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Active again, due now, its failures forgotten; the cursor stays where delivery stopped. */
export function resumeSubscription(em: EntityManager, clientId: string, id: string) {
  return db(em)
    .updateTable('webhook_subscription')
    .set((eb) => ({
      status: 'active',
      paused_reason: null,
      paused_at: null,
      failures: 0,
      failing_since: null,
      next_attempt_at: eb.fn<Date>('now'),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .returning(SUBSCRIPTION_COLUMNS)
    .executeTakeFirst();
}

/** The new secret signs from now on; the one it replaces signs beside it for `overlapSeconds`. */
export function rotateSubscriptionSecret(em: EntityManager, clientId: string, id: string, secret: string, overlapSeconds: number) {
  return db(em)
    .updateTable('webhook_subscription')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_until: nowShifted('+', overlapSeconds),
      secret,
      updated_at: eb.fn<Date>('now'),
    }))
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .returning(SUBSCRIPTION_COLUMNS)
    .executeTakeFirst();
}

/** What signs a message now: the secret, and the previous one while its overlap lasts. */
export function signingSecrets(em: EntityManager, id: string) {
  return db(em)
    .selectFrom('webhook_subscription as s')
    .select((eb) => [
      's.secret',
      eb.case().when('s.previous_secret_until', '>', eb.fn<Date>('now')).then(eb.ref('s.previous_secret')).else(null).end().as('previous_secret'),
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

// ---- the delivery log

export type DeliveryRecord = {
  subscription_id: string;
  message_id: string;
  type: string;
  user_id: string | null;
  attempt: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
};

export async function insertDeliveries(em: EntityManager, rows: readonly DeliveryRecord[]): Promise<void> {
  if (!rows.length) return;
  await db(em)
    .insertInto('webhook_delivery')
    .columns(['subscription_id', 'message_id', 'type', 'user_id', 'attempt', 'status', 'error', 'duration_ms'])
    .expression(
      db(em)
        .selectFrom(
          recordset<DeliveryRecord, 'r'>(
            rows,
            'r',
            'subscription_id bigint, message_id text, type text, user_id uuid, attempt integer, status integer, error text, duration_ms integer',
          ),
        )
        .select(['r.subscription_id', 'r.message_id', 'r.type', 'r.user_id', 'r.attempt', 'r.status', 'r.error', 'r.duration_ms']),
    )
    .execute();
}

/** Deletes the subscription's log rows past its newest `keep`. */
export async function pruneDeliveries(em: EntityManager, subscriptionId: string, keep: number): Promise<void> {
  await db(em)
    .deleteFrom('webhook_delivery')
    .where('subscription_id', '=', subscriptionId)
    .where('id', '<=', (eb) =>
      eb.selectFrom('webhook_delivery').select('id').where('subscription_id', '=', subscriptionId).orderBy('id', 'desc').offset(keep).limit(1),
    )
    .execute();
}

/** A page of the subscription's log, newest first, before id `before` when given. */
export function deliveriesPage(em: EntityManager, subscriptionId: string, before: string | undefined, limit: number) {
  return db(em)
    .selectFrom('webhook_delivery')
    .select(['id', 'message_id', 'type', 'user_id', 'attempt', 'status', 'error', 'duration_ms', 'at'])
    .where('subscription_id', '=', subscriptionId)
    .$if(before !== undefined, (q) => q.where('id', '<', before!))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

// ---- the deliverer

/** Active subscriptions of active apps, due and not held by a deliverer, the longest waiting first. */
export async function dueSubscriptions(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('webhook_subscription as s')
    .innerJoin('app as a', 'a.client_id', 's.client_id')
    .select('s.id')
    .where('s.status', '=', 'active')
    .where('s.next_attempt_at', '<=', (eb) => eb.fn<Date>('now'))
    .where((eb) => eb.or([eb('s.lease_until', 'is', null), eb('s.lease_until', '<', eb.fn<Date>('now'))]))
    .where('a.active', '=', true)
    .orderBy('s.next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Takes the subscription for `claim` (compare-and-set: only while it is active, due and no live lease
 * holds it); what delivery needs of it, or undefined.
 */
export function claimSubscription(em: EntityManager, id: string, claim: string, leaseSeconds: number) {
  return db(em)
    .updateTable('webhook_subscription as s')
    .set({ claim, lease_until: nowShifted('+', leaseSeconds) })
    .where('s.id', '=', id)
    .where('s.status', '=', 'active')
    .where('s.next_attempt_at', '<=', (eb) => eb.fn<Date>('now'))
    .where((eb) => eb.or([eb('s.lease_until', 'is', null), eb('s.lease_until', '<', eb.fn<Date>('now'))]))
    .returning((eb) => [
      's.id',
      's.client_id',
      's.url',
      's.kinds',
      's.failures',
      's.failing_since',
      eb.cast<string>('s.cursor_xid', 'text').as('xid'),
      eb.cast<string>('s.cursor_change_id', 'text').as('change_id'),
      's.delivered_ahead',
    ])
    .executeTakeFirst();
}

/** Gives the lease back, if this claim still holds it. */
export async function releaseSubscription(em: EntityManager, id: string, claim: string): Promise<void> {
  await db(em).updateTable('webhook_subscription').set({ claim: null, lease_until: null }).where('id', '=', id).where('claim', '=', claim).execute();
}

/** Where a page left the subscription: its new position and the outcome of its last attempt. */
export type Settlement = {
  to: Position;
  /** Change ids past `to` already answered 2xx (sent by another user's chain before the stop). */
  ahead: string[];
  leaseSeconds: number;
  /** The last attempt's status and error, when the page made any. */
  last?: { status: number | null; error: string | null } | undefined;
  /** Some message was answered 2xx. */
  anyDelivered: boolean;
  /** A failure: the count and its start after it, the next attempt's delay and whether it pauses; none: the failures are over. */
  failure?: { failures: number; failingSince: Date; retryInSeconds: number; pausedReason: string | null } | undefined;
};

/**
 * Moves the cursor and records the page's outcome, renewing the lease, if this claim still holds the
 * subscription (compare-and-set); false when it does not (another deliverer has it, or it was deleted).
 */
export async function settleSubscription(tx: EntityManager, id: string, claim: string, s: Settlement): Promise<boolean> {
  const row = await db(tx)
    .updateTable('webhook_subscription')
    .set((eb) => ({
      cursor_xid: xid8(s.to.xid),
      cursor_change_id: s.to.id,
      delivered_ahead: s.ahead,
      lease_until: nowShifted('+', s.leaseSeconds),
      ...(s.last ? { last_attempt_at: eb.fn<Date>('now'), last_status: s.last.status, last_error: s.last.error } : {}),
      ...(s.anyDelivered ? { last_success_at: eb.fn<Date>('now') } : {}),
      ...(s.failure
        ? {
            failures: s.failure.failures,
            failing_since: s.failure.failingSince,
            next_attempt_at: nowShifted('+', s.failure.retryInSeconds),
            ...(s.failure.pausedReason !== null ? { status: 'paused' as const, paused_reason: s.failure.pausedReason, paused_at: eb.fn<Date>('now') } : {}),
          }
        : { failures: 0, failing_since: null }),
    }))
    .where('id', '=', id)
    .where('claim', '=', claim)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The resources a subscription follows, each with the read scope a user's grant needs for it. */
type Followed = { clientId: string; resources: readonly ChangeResource[]; revoked: boolean };

/** A grant of the app still standing (its Grant artifact unexpired) for the change's user, holding the resource's scope. */
function grantHolds(eb: ExpressionBuilder<Tables & { scan: { user_id: string; resource: string } } & { k: { resource: string; scope: string } }, 'scan' | 'k'>, clientId: string) {
  return eb.exists(
    eb
      .selectFrom('app_grant as g')
      .innerJoin('oauth_artifact as o', 'o.id', 'g.grant_key')
      .select(eb.lit(1).as('one'))
      .whereRef('g.user_id', '=', 'scan.user_id')
      .where('g.client_id', '=', clientId)
      .where((eb) => eb(eb.ref('k.scope'), '=', eb.fn.any('g.scopes')))
      .where((eb) => eb.or([eb('o.expires_at', 'is', null), eb('o.expires_at', '>', eb.fn<Date>('now'))])),
  );
}

/**
 * The next `size` changes after `from` in feed order, of settled transactions only (the change feed's
 * rule: a transaction that commits late never lands behind the cursor), whoever made them. Each row says
 * whether the subscription sends it (`hit`): a followed resource of a user whose grant of the app holds
 * its scope now, or a revocation of this app when it follows those. A hit carries what the change feed
 * serves for it: the item's latest settled state. The rows the app may not see are passed over by
 * position only.
 */
function pageQuery(k: Kysely<Tables>, f: Followed, from: Position, size: number) {
  const followed = f.resources.map((resource) => ({ resource, scope: CHANGE_RESOURCES[resource] }));
  return k
    .with('scan', (qc) =>
      qc
        .selectFrom('change_log as c')
        .select(['c.id', 'c.xid', 'c.user_id', 'c.resource', 'c.resource_id', 'c.changed_at'])
        .where((eb) => eb(eb.refTuple('c.xid', 'c.id'), '>', eb.tuple(xid8(from.xid), eb.cast<string>(eb.val(from.id), 'bigint'))))
        .where('c.xid', '<', settledHorizon())
        .orderBy('c.xid')
        .orderBy('c.id')
        .limit(size),
    )
    .with('marked', (qc) =>
      qc.selectFrom('scan').select((eb) => [
        'scan.id',
        'scan.xid',
        'scan.user_id',
        'scan.resource',
        'scan.resource_id',
        'scan.changed_at',
        eb
          .or([
            eb.exists(
              eb
                .selectFrom(recordset<{ resource: string; scope: string }, 'k'>(followed, 'k', 'resource text, scope text'))
                .select(eb.lit(1).as('one'))
                .whereRef('k.resource', '=', 'scan.resource')
                .where((eb) => grantHolds(eb, f.clientId)),
            ),
            ...(f.revoked ? [eb.and([eb('scan.resource', '=', REVOKED_RESOURCE), eb('scan.resource_id', '=', f.clientId)])] : []),
          ])
          .as('hit'),
      ]),
    )
    .selectFrom('marked as m')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('change_log as n')
          .select(['n.op', 'n.changed_at', 'n.data'])
          .whereRef('n.user_id', '=', 'm.user_id')
          .whereRef('n.resource', '=', 'm.resource')
          .whereRef('n.resource_id', '=', 'm.resource_id')
          .where('n.xid', '<', settledHorizon())
          .where((eb) => eb.and([eb.ref('m.hit'), eb('m.resource', '<>', REVOKED_RESOURCE)]))
          .orderBy('n.id', 'desc')
          .limit(1)
          .as('l'),
      (join) => join.onTrue(),
    )
    .select((eb) => [
      eb.cast<string>('m.id', 'text').as('id'),
      eb.cast<string>('m.xid', 'text').as('xid'),
      'm.user_id',
      'm.resource',
      'm.resource_id',
      'm.hit',
      eb.fn.coalesce('l.changed_at', 'm.changed_at').as('changed_at'),
      'l.op',
      'l.data',
    ])
    .orderBy('m.xid')
    .orderBy('m.id');
}

export function changePage(em: EntityManager, f: Followed, from: Position, size: number) {
  return pageQuery(db(em), f, from, size).execute();
}

export type PageRow = Awaited<ReturnType<typeof changePage>>[number];
