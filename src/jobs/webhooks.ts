// Delivers outbound webhooks (src/core/webhooks/deliver.ts) every WEBHOOK_INTERVAL_MS: each tick serves
// the due subscriptions for up to half the interval, each under its own lease, so overlapping ticks and
// instances never send one subscription's messages twice or out of order. Between ticks, every
// commit that wrote changes nudges this process's deliverer (core/changes/written.ts), which then runs a
// pass of its own at once, at most one at a time and one every WAKE_GAP_MS.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { deliverDue } from '../core/webhooks/deliver.ts';
import type { WebhookSettings } from '../core/webhooks/settings.ts';
import { onChangesCommitted } from '../core/changes/written.ts';
import type { Job } from './job.ts';

export const WEBHOOK_JOB = 'webhooks';

/** A pass's budget: half the interval, as the import job writes for. */
const budgetMs = (s: WebhookSettings) => s.intervalMs / 2;

/** Passes on a nudge start no closer together than this (a burst of writes is one pass, not one each). */
const WAKE_GAP_MS = 100;

/** `settings.intervalMs` 0 turns the job off in this instance (WEBHOOK_INTERVAL_MS). */
export function webhookJob(settings: WebhookSettings): Job {
  return { name: WEBHOOK_JOB, intervalMs: settings.intervalMs, run: async (em) => ({ ...(await deliverDue(em, settings, budgetMs(settings))) }) };
}

/** Runs a pass when nudged, until stopped; stop() waits for the pass under way. */
export function startWebhookWake(orm: MikroORM, log: Logger, settings: WebhookSettings): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const pass = async () => {
    do {
      again = false;
      const started = Date.now();
      try {
        await deliverDue(orm.em.fork(), settings, budgetMs(settings));
      } catch (err) {
        log.warn({ err }, 'webhook delivery pass failed (the job retries)');
      }
      const wait = WAKE_GAP_MS - (Date.now() - started);
      if (again && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } while (again && !stopped);
    running = null;
  };
  const unlisten = onChangesCommitted(() => {
    if (stopped) return;
    if (running) again = true;
    else running = pass();
  });
  return {
    stop: async () => {
      stopped = true;
      unlisten();
      await running;
    },
  };
}
