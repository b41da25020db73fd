// The tables of outbound webhooks: an app's subscriptions (where to send which kinds of change, with the
// secret that signs them and where delivery stands in the change log) and the log of delivery attempts.
import { defineEntity, p } from '@mikro-orm/core';
import { App } from './apps.ts';

/**
 * One URL an app subscribed to some kinds of change. Delivery follows change_log from (cursorXid,
 * cursorChangeId), the position of the last change delivered or passed over; `claim` and `leaseUntil`
 * keep one deliverer at a time on it across instances (compare-and-set, like import runs' leases).
 */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  indexes: [
    { name: 'webhook_subscription_client', properties: ['client', 'id'] },
    // The deliverer's question on every tick: which active subscriptions are due.
    { name: 'webhook_subscription_due', where: 'status = \'active\'', properties: ['nextAttemptAt'] },
  ],
  properties: {
    id: p.bigint('string').primary().autoincrement().generated('identity'),
    client: () => p.manyToOne(App).name('client_id').updateRule('no action').deleteRule('cascade'),
    url: p.text(),
    /** Change resources, `playback` among them, and `authorization.revoked` (core/webhooks/kinds.ts). */
    kinds: p.array(),
    /** `whsec_` + base64 of 32 random bytes: it signs every message, so it is stored as it is. */
    secret: p.text(),
    /** The secret before the last rotation, still signing beside the new one until previousSecretUntil. */
    previousSecret: p.text().nullable(),
    previousSecretUntil: p.datetime().nullable(),
    status: p.enum(['active', 'paused']).default('active'),
    /** Why delivery stopped (the last status or error), shown to the owner until they resume it. */
    pausedReason: p.text().nullable(),
    pausedAt: p.datetime().nullable(),
    cursorXid: p.unknown().columnType('xid8'),
    cursorChangeId: p.bigint('string'),
    /** Changes past the cursor already delivered (by other users' chains of a page that stopped short), passed over next time. */
    deliveredAhead: p.array().default([]),
    /** Failed attempts since the last success, and when the first of them was. */
    failures: p.integer().default(0),
    failingSince: p.datetime().nullable(),
    nextAttemptAt: p.datetime().defaultRaw(`now()`),
    lastAttemptAt: p.datetime().nullable(),
    lastSuccessAt: p.datetime().nullable(),
    lastStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    claim: p.uuid().nullable(),
    leaseUntil: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

/** One attempt to deliver one message (the newest WEBHOOK_LOG_KEEP per subscription are kept). */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  indexes: [{ name: 'webhook_delivery_subscription', properties: ['subscription', 'id'] }],
  properties: {
    id: p.bigint('string').primary().autoincrement().generated('identity'),
    subscription: () => p.manyToOne(WebhookSubscription).updateRule('no action').deleteRule('cascade'),
    messageId: p.text(),
    type: p.text(),
    /** The user whose change it carried; null for a test message. No foreign key: the log outlives nothing it names. */
    userId: p.uuid().nullable(),
    /** 1 for the first attempt of the message, counting up while it fails. */
    attempt: p.integer(),
    /** The receiver's HTTP status; null when none came (refused, timed out, unreachable). */
    status: p.integer().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer(),
    at: p.datetime().defaultRaw(`now()`),
  },
});
