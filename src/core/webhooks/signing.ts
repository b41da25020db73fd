// Signing as the Standard Webhooks specification says, with its reference implementation (the
// `standardwebhooks` package): `webhook-id`, `webhook-timestamp` (Unix seconds of the attempt) and
// `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret's key). A
// receiver verifies with the same package, or any library of the specification.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 32 random bytes: the specification's form of a secret. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The three headers of one attempt. Several secrets (the new one and, for a day after a rotation, the
 * one before) give one signature each, separated by a space: a receiver holding either accepts it.
 */
export function signatureHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(messageId, at, body)).join(' '),
  };
}
