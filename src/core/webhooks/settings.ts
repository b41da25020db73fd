// How webhooks are delivered in this deployment (src/config.ts reads them from the WEBHOOK_* variables).
export type WebhookSettings = {
  /** How often the deliverer looks for due subscriptions (ms); 0: not in this instance. */
  intervalMs: number;
  /** Whether destinations on private, loopback and other non-public addresses, and plain http, are allowed. */
  allowPrivate: boolean;
  /** How long one attempt may take, connection to the end of the answer (ms). */
  timeoutMs: number;
  /** The delay after the first failure (ms); each further failure waits six times longer, up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A subscription is paused after this many failed attempts in a row, once they span pauseAfterMs. */
  pauseAfterFailures: number;
  pauseAfterMs: number;
};

/** The delay before the next attempt after `failures` failed attempts in a row: 5 s, 30 s, 3 min, 15 min, 1.5 h, 6 h, 6 h, ... by default. */
export function retryDelayMs(s: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>, failures: number): number {
  return Math.min(s.retryMaxMs, s.retryBaseMs * 6 ** Math.max(0, failures - 1));
}
