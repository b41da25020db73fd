// The webhooks of the token's own app (`Webhook` in the platform OpenAPI document; docs/decisions.md,
// Outbound webhooks): only a token whose user owns its app may manage them (others 403 `app_owner_only`).
// Reads need profile:read, changes profile:write: the app's settings, as its owner's account holds them.
import { z } from 'zod';
import {
  appOfToken,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  resumeWebhook,
  rotateWebhookSecret,
  sendTestMessage,
  updateWebhook,
  webhookDeliveries,
} from '../../core/webhooks/service.ts';
import {
  createWebhookInput,
  deliveriesInput,
  deliveriesPage,
  testResult,
  updateWebhookInput,
  webhook,
  webhookId,
  webhookWithSecret,
  WEBHOOKS_PER_APP,
} from '../../core/webhooks/schemas.ts';
import { platformProcedure, router, type Context } from '../trpc.ts';

const tags = ['webhooks'];
const OWNER = 'Only for a token whose user owns its app: others get 403 `app_owner_only`.';
/** A subscription's fields are a URL and a list of kinds: a few KiB at most. */
const BODY_LIMIT = 8 * 1024;
const errors = ['app_owner_only'] as const;

const app = (ctx: Context & { actor: NonNullable<Context['actor']> }) => appOfToken(ctx.em, ctx.actor);

export const webhooksRouter = router({
  list: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/apps/me/webhooks', tags, protect: true, summary: 'The webhooks of this token\'s app, oldest first', description: OWNER }, limits: ['webhooks'], errors })
    .input(z.strictObject({}).optional())
    .output(z.strictObject({ items: z.array(webhook) }))
    .query(async ({ ctx }) => ({ items: await listWebhooks(ctx.em, await app(ctx)) })),
  get: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/apps/me/webhooks/{id}', tags, protect: true, summary: 'One webhook of this token\'s app, with its delivery state', description: OWNER }, limits: ['webhooks'], errors })
    .input(webhookId)
    .output(webhook)
    .query(async ({ ctx, input }) => getWebhook(ctx.em, await app(ctx), input.id)),
  create: platformProcedure('profile:write')
    .meta({
      openapi: {
        method: 'POST', path: '/apps/me/webhooks', tags, protect: true,
        summary: 'Subscribe a URL to kinds of change; the signing secret is shown once',
        description: `Messages follow the change feed: one per change, at least once, in order per user, for the users whose grant of the app holds the kind's read scope when it is sent. Each is a Standard Webhooks message (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`: HMAC-SHA256 under \`secret\`), its body \`{type, timestamp, data}\`. A failed attempt (not 2xx within 10 s; redirects are not followed) is retried with backoff; repeated failures over a day, or a 410, pause the webhook. An app holds at most ${WEBHOOKS_PER_APP}. ${OWNER}`,
      },
      limits: ['webhooks'],
      bodyLimit: BODY_LIMIT,
      errors,
    })
    .input(createWebhookInput)
    .output(webhookWithSecret)
    .mutation(async ({ ctx, input }) => createWebhook(ctx.em, await app(ctx), input, ctx.config.webhooks)),
  update: platformProcedure('profile:write')
    .meta({ openapi: { method: 'PATCH', path: '/apps/me/webhooks/{id}', tags, protect: true, summary: 'Change a webhook\'s URL or kinds', description: `Delivery goes on from where it stands. ${OWNER}` }, limits: ['webhooks'], bodyLimit: BODY_LIMIT, errors })
    .input(updateWebhookInput)
    .output(webhook)
    .mutation(async ({ ctx, input }) => updateWebhook(ctx.em, await app(ctx), input.id, input, ctx.config.webhooks)),
  remove: platformProcedure('profile:write')
    .meta({ openapi: { method: 'DELETE', path: '/apps/me/webhooks/{id}', tags, protect: true, summary: 'Delete a webhook and its delivery log', description: OWNER }, limits: ['webhooks'], errors })
    .input(webhookId)
    .output(z.strictObject({ id: z.string(), deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await deleteWebhook(ctx.em, await app(ctx), input.id);
      return { id: String(input.id), deleted: true as const };
    }),
  test: platformProcedure('profile:write')
    .meta({
      openapi: { method: 'POST', path: '/apps/me/webhooks/{id}/test', tags, protect: true, summary: 'Send a `webhook.test` message now and answer how the receiver took it', description: `Paused or not; the attempt is logged, never retried, and changes nothing else. ${OWNER}` },
      limits: ['webhooks', 'webhook-test'],
      errors,
    })
    .input(webhookId)
    .output(testResult)
    .mutation(async ({ ctx, input }) => sendTestMessage(ctx.em, await app(ctx), input.id, ctx.config.webhooks)),
  resume: platformProcedure('profile:write')
    .meta({ openapi: { method: 'POST', path: '/apps/me/webhooks/{id}/resume', tags, protect: true, summary: 'Resume a paused webhook (or retry a failing one now)', description: `Delivery goes on from the message that failed. ${OWNER}` }, limits: ['webhooks'], errors })
    .input(webhookId)
    .output(webhook)
    .mutation(async ({ ctx, input }) => resumeWebhook(ctx.em, await app(ctx), input.id)),
  rotateSecret: platformProcedure('profile:write')
    .meta({ openapi: { method: 'POST', path: '/apps/me/webhooks/{id}/rotate-secret', tags, protect: true, summary: 'A new signing secret, shown once; the old one also signs for a day', description: OWNER }, limits: ['webhooks'], errors })
    .input(webhookId)
    .output(webhookWithSecret)
    .mutation(async ({ ctx, input }) => rotateWebhookSecret(ctx.em, await app(ctx), input.id)),
  deliveries: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/apps/me/webhooks/{id}/deliveries', tags, protect: true, summary: 'The webhook\'s delivery attempts, newest first', description: `The newest 1000 attempts are kept. ${OWNER}` }, limits: ['webhooks'], errors })
    .input(deliveriesInput)
    .output(deliveriesPage)
    .query(async ({ ctx, input }) => webhookDeliveries(ctx.em, await app(ctx), input.id, input)),
});
