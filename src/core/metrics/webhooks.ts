// Outbound webhooks' metrics: every attempt by outcome and time, subscriptions paused, and how old the
// oldest message waiting was when the deliverer last found one.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './registry.ts';

const deliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx) or failed (another status, a timeout, a refused destination, no connection).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'webhook_delivery_duration_seconds',
  help: 'Time of one webhook delivery attempt, from resolving the destination to the end of its answer, by outcome.',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const pauses = new Counter({
  name: 'webhook_subscriptions_paused_total',
  help: 'Webhook subscriptions paused after repeated failures (or a 410 Gone).',
  registers: [registry],
});

const backlog = new Gauge({
  name: 'webhook_backlog_age_seconds',
  help: 'Age of the oldest message waiting, among the subscriptions the last delivery pass of this instance served (0: none waited).',
  registers: [registry],
});

export function recordWebhookAttempt(a: { error: string | null; durationMs: number }): void {
  const outcome = a.error === null ? 'delivered' : 'failed';
  deliveries.inc({ outcome });
  duration.observe({ outcome }, a.durationMs / 1000);
}

export function recordWebhookPause(): void {
  pauses.inc();
}

export function setWebhookBacklog(seconds: number): void {
  backlog.set(seconds);
}
