// Wire shapes of outbound webhooks (`Webhook`, `WebhookDelivery` in the platform OpenAPI document).
import { z } from 'zod';
import { wireId, wireInt } from '../wire/numbers.ts';
import { URL_MAX } from './destination.ts';
import { WEBHOOK_KINDS } from './kinds.ts';

/** Subscriptions an app may hold. */
export const WEBHOOKS_PER_APP = 10;
/** Delivery log rows kept per subscription, newest first. */
export const DELIVERY_LOG_KEEP = 1000;

const kind = z.enum(WEBHOOK_KINDS);
const kinds = z
  .array(kind)
  .min(1)
  .max(WEBHOOK_KINDS.length * 2)
  .describe(
    'What to send: change feed resources (each sent for the users whose grant of the app holds its read scope, as the change feed requires; `playback` is Continue Watching) and `authorization.revoked` (a user revoked the app). A resource whose scope the app may not be granted is refused.',
  );
const url = z.string().min(1).max(URL_MAX).describe('Where messages are posted: https (http and private or loopback addresses only where the operator allows them), no user name, password or fragment.');
const when = z.iso.datetime();

export const webhook = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    kinds: z.array(kind),
    status: z.enum(['active', 'paused']).describe('`paused` after repeated failures (or a 410 answer): nothing is sent until it is resumed.'),
    pausedReason: z.string().nullable().describe('Why it was paused: the last status or error. Null while active.'),
    pausedAt: when.nullable(),
    failures: z.number().int().describe('Failed attempts since the last success.'),
    nextAttemptAt: when.describe('When the next attempt may go (after a failure: the retry\'s backoff).'),
    lastAttemptAt: when.nullable(),
    lastSuccessAt: when.nullable(),
    lastStatus: z.number().int().nullable().describe('The HTTP status of the last attempt; null when none came.'),
    lastError: z.string().nullable().describe('Why the last attempt failed; null when it succeeded.'),
    createdAt: when,
    updatedAt: when,
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.infer<typeof webhook>;

export const webhookWithSecret = webhook
  .extend({
    secret: z.string().describe('`whsec_` + base64: the key messages are signed with (Standard Webhooks). Shown only here: keep it.'),
  })
  .meta({ id: 'WebhookWithSecret' });
export type WebhookWithSecret = z.infer<typeof webhookWithSecret>;

export const webhookId = z.strictObject({ id: wireId() });

export const createWebhookInput = z.strictObject({ url, kinds });

export const updateWebhookInput = z
  .strictObject({ id: wireId(), url: url.optional(), kinds: kinds.optional() })
  .refine((v) => v.url !== undefined || v.kinds !== undefined, 'give url, kinds or both');

const webhookDelivery = z
  .strictObject({
    id: z.string(),
    messageId: z.string().describe('The `webhook-id` header: the same on every attempt of one message.'),
    type: z.string().describe('The message type, e.g. `history.upsert`, `authorization.revoked`, `webhook.test`.'),
    userId: z.string().nullable().describe('The user whose change it carried; null for a test message.'),
    attempt: z.number().int(),
    status: z.number().int().nullable().describe('The receiver\'s HTTP status; null when none came.'),
    error: z.string().nullable().describe('Why the attempt failed; null on a 2xx.'),
    durationMs: z.number().int(),
    at: when,
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveriesInput = z.strictObject({
  id: wireId(),
  limit: wireInt(1, 100).optional().describe('Attempts per page (default 50).'),
  before: wireId().optional().describe('The `nextBefore` of the previous page.'),
});

export const deliveriesPage = z.strictObject({
  items: z.array(webhookDelivery),
  nextBefore: z.string().nullable().describe('Pass as `before` for older attempts; null at the end.'),
});
export type DeliveriesPage = z.infer<typeof deliveriesPage>;

export const testResult = z
  .strictObject({
    delivered: z.boolean().describe('The receiver answered 2xx.'),
    messageId: z.string(),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
  })
  .meta({ id: 'WebhookTestResult' });
export type TestResult = z.infer<typeof testResult>;
