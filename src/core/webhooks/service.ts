// An app's webhooks as its owner manages them: through the API with a token of the app itself (the
// token's user must own the token's app) or on the account page of the app (/account/apps/{id}).
//
// The functions a caller uses, each after one of the two ownership checks:
//   appOfToken(em, actor)                   the token's own app; 403 app_owner_only unless its user owns it
//   appOfOwner(em, userId, clientId)        an app on the account page; 404 not_found unless the user owns it
//   listWebhooks(em, app)                   -> Webhook[], oldest first
//   getWebhook(em, app, id)                 -> Webhook
//   createWebhook(em, app, input, settings) -> WebhookWithSecret (the secret is shown this once)
//   updateWebhook(em, app, id, { url?, kinds? }, settings) -> Webhook
//   deleteWebhook(em, app, id)
//   resumeWebhook(em, app, id)              -> Webhook (active and due now; delivery goes on where it stopped)
//   rotateWebhookSecret(em, app, id)        -> WebhookWithSecret (the old secret signs too for a day)
//   sendTestMessage(em, app, id, settings)  -> TestResult (posts `webhook.test` now, logged, never retried)
//   webhookDeliveries(em, app, id, { limit?, before? }) -> DeliveriesPage (the delivery log, newest first)
// Delivery itself is deliver.ts; a revocation's message is recorded by revocation.ts.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { appsOwnedBy } from '../apps/repository.ts';
import { ApiError, notFound } from '../errors.ts';
import { recordWebhookAttempt } from '../metrics/webhooks.ts';
import { transaction } from '../db/transaction.ts';
import { checkDestination } from './destination.ts';
import { checkKinds } from './kinds.ts';
import { testMessage } from './message.ts';
import {
  deleteSubscription,
  deliveriesPage,
  insertDeliveries,
  insertSubscription,
  lockAppAndCountSubscriptions,
  pruneDeliveries,
  resumeSubscription,
  rotateSubscriptionSecret,
  signingSecrets,
  subscriptionsOf,
  updateSubscription,
  type SubscriptionRow,
} from './repository.ts';
import { DELIVERY_LOG_KEEP, WEBHOOKS_PER_APP, type DeliveriesPage, type TestResult, type Webhook, type WebhookWithSecret } from './schemas.ts';
import { postMessage } from './send.ts';
import type { WebhookSettings } from './settings.ts';
import { newWebhookSecret, signatureHeaders } from './signing.ts';

/** After a rotation the old secret signs beside the new one this long, so a receiver can switch without losing messages. */
const ROTATION_OVERLAP_SECONDS = 24 * 3600;
const DELIVERIES_PAGE = 50;

/** An app whose owner the caller was checked to be (only the two functions below make one). */
export type WebhookApp = { readonly clientId: string; readonly allowedScopes: readonly string[]; readonly [checked]: true };
declare const checked: unique symbol;

async function ownedBy(em: EntityManager, userId: string, clientId: string): Promise<WebhookApp | null> {
  const [app] = await appsOwnedBy(em, userId, clientId);
  return app ? ({ clientId: app.client_id, allowedScopes: app.allowed_scopes } as unknown as WebhookApp) : null;
}

/** The token's own app, when the token's user owns it (403 app_owner_only otherwise). */
export async function appOfToken(em: EntityManager, actor: Actor): Promise<WebhookApp> {
  const app = await ownedBy(em, actor.userId, actor.clientId);
  if (!app) throw new ApiError('app_owner_only', 'Only the app\'s owner manages its webhooks: this token\'s user does not own its app');
  return app;
}

/**
 * An app on its owner's account page (404 not_found for anyone else, as for an app that does not exist).
 * @public (for the account page of an app)
 */
export async function appOfOwner(em: EntityManager, userId: string, clientId: string): Promise<WebhookApp> {
  const app = await ownedBy(em, userId, clientId);
  if (!app) throw notFound('app');
  return app;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function present(r: SubscriptionRow): Webhook {
  return {
    id: String(r.id),
    url: r.url,
    kinds: r.kinds as Webhook['kinds'],
    status: r.status,
    pausedReason: r.paused_reason,
    pausedAt: iso(r.paused_at),
    failures: r.failures,
    nextAttemptAt: iso(r.next_attempt_at)!,
    lastAttemptAt: iso(r.last_attempt_at),
    lastSuccessAt: iso(r.last_success_at),
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

const missing = () => notFound('Webhook');

async function one(em: EntityManager, app: WebhookApp, id: number | string): Promise<SubscriptionRow> {
  const [row] = await subscriptionsOf(em, app.clientId, String(id));
  if (!row) throw missing();
  return row;
}

export async function listWebhooks(em: EntityManager, app: WebhookApp): Promise<Webhook[]> {
  return (await subscriptionsOf(em, app.clientId)).map(present);
}

export async function getWebhook(em: EntityManager, app: WebhookApp, id: number): Promise<Webhook> {
  return present(await one(em, app, id));
}

/** A new subscription: its URL checked (form and addresses), its kinds against the app's scopes, at most WEBHOOKS_PER_APP. */
export async function createWebhook(em: EntityManager, app: WebhookApp, input: { url: string; kinds: string[] }, settings: WebhookSettings): Promise<WebhookWithSecret> {
  const url = await checkDestination(input.url, settings);
  const kinds = checkKinds(input.kinds, app.allowedScopes);
  const secret = newWebhookSecret();
  const row = await transaction(em, async (tx) => {
    if ((await lockAppAndCountSubscriptions(tx, app.clientId)) >= WEBHOOKS_PER_APP) {
      throw new ApiError('invalid_request', `An app may hold at most ${WEBHOOKS_PER_APP} webhooks: delete one it no longer uses first`);
    }
    return insertSubscription(tx, { clientId: app.clientId, url: url.href, kinds, secret });
  });
  return { ...present(row), secret };
}

export async function updateWebhook(
  em: EntityManager,
  app: WebhookApp,
  id: number,
  input: { url?: string | undefined; kinds?: string[] | undefined },
  settings: WebhookSettings,
): Promise<Webhook> {
  const url = input.url === undefined ? undefined : (await checkDestination(input.url, settings)).href;
  const kinds = input.kinds === undefined ? undefined : checkKinds(input.kinds, app.allowedScopes);
  const row = await updateSubscription(em, app.clientId, String(id), { url, kinds });
  if (!row) throw missing();
  return present(row);
}

export async function deleteWebhook(em: EntityManager, app: WebhookApp, id: number): Promise<void> {
  if (!(await deleteSubscription(em, app.clientId, String(id)))) throw missing();
}

export async function resumeWebhook(em: EntityManager, app: WebhookApp, id: number): Promise<Webhook> {
  const row = await resumeSubscription(em, app.clientId, String(id));
  if (!row) throw missing();
  return present(row);
}

export async function rotateWebhookSecret(em: EntityManager, app: WebhookApp, id: number): Promise<WebhookWithSecret> {
  const secret = newWebhookSecret();
  const row = await rotateSubscriptionSecret(em, app.clientId, String(id), secret, ROTATION_OVERLAP_SECONDS);
  if (!row) throw missing();
  return { ...present(row), secret };
}

/**
 * Posts a `webhook.test` message to the subscription's URL now, paused or not, signed like every other
 * (the destination checked the same way), and logs the attempt. Its outcome changes nothing else.
 */
export async function sendTestMessage(em: EntityManager, app: WebhookApp, id: number, settings: WebhookSettings): Promise<TestResult> {
  const row = await one(em, app, id);
  const secrets = (await signingSecrets(em, row.id))!;
  const now = new Date();
  const message = testMessage(row.id, `msg_test_${randomUUID()}`, now);
  const headers = signatureHeaders([secrets.secret, ...(secrets.previous_secret ? [secrets.previous_secret] : [])], message.id, now, message.body);
  const a = await postMessage(new URL(row.url), message.body, headers, settings);
  recordWebhookAttempt(a);
  await insertDeliveries(em, [
    { subscription_id: row.id, message_id: message.id, type: message.type, user_id: null, attempt: 1, status: a.status, error: a.error, duration_ms: a.durationMs },
  ]);
  await pruneDeliveries(em, row.id, DELIVERY_LOG_KEEP);
  return { delivered: a.error === null, messageId: message.id, status: a.status, error: a.error, durationMs: a.durationMs };
}

export async function webhookDeliveries(em: EntityManager, app: WebhookApp, id: number, page: { limit?: number | undefined; before?: number | undefined }): Promise<DeliveriesPage> {
  const row = await one(em, app, id);
  const limit = page.limit ?? DELIVERIES_PAGE;
  const rows = await deliveriesPage(em, row.id, page.before === undefined ? undefined : String(page.before), limit + 1);
  const items = rows.slice(0, limit).map((d) => ({
    id: String(d.id),
    messageId: d.message_id,
    type: d.type,
    userId: d.user_id,
    attempt: d.attempt,
    status: d.status,
    error: d.error,
    durationMs: d.duration_ms,
    at: iso(d.at)!,
  }));
  return { items, nextBefore: rows.length > limit ? items.at(-1)!.id : null };
}
