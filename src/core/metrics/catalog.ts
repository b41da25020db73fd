// The living catalog's metrics: what the metadata provider was asked and answered, what each fetch of a
// title came to, and how far the refresh of followed titles is behind.
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from './registry.ts';

export const catalogProviderRequests = new Counter({
  name: 'catalog_provider_requests_total',
  help: 'Requests to the metadata provider by answer: ok, not_found, rate_limited (429), failed (other status) or error (no answer).',
  labelNames: ['answer'] as const,
  registers: [registry],
});

export const catalogFetches = new Counter({
  name: 'catalog_fetches_total',
  help: 'Fetches of a title from the metadata provider by reason (first_use, refresh) and outcome (stored, missing, invalid, failed).',
  labelNames: ['reason', 'outcome'] as const,
  registers: [registry],
});

export const catalogFetchDuration = new Histogram({
  name: 'catalog_fetch_duration_seconds',
  help: 'Time to fetch and store one title (with its seasons and episodes), by reason and outcome.',
  labelNames: ['reason', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const catalogFetchesInFlight = new Gauge({
  name: 'catalog_fetches_in_flight',
  help: 'Title fetches under way in this instance (first uses still running in the background included).',
  registers: [registry],
});

export const catalogRefreshBacklog = new Gauge({
  name: 'catalog_refresh_backlog',
  help: 'Titles people follow, watch or list that are due a refresh, as the last refresh run left them.',
  registers: [registry],
});
