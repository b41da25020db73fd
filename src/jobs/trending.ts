// Refreshes the trending roll-up (src/core/catalog/trending-rollup.ts) every few minutes: the week's
// watchers per title, which GET /catalog/trending reads. Replacing the table is idempotent, so an
// overlapping run only repeats the same work.
import { rollUpTrending } from '../core/catalog/trending-rollup.ts';
import type { Job } from './job.ts';

const TRENDING_INTERVAL_MS = 10 * 60 * 1000;

export const trendingJob: Job = { name: 'trending', intervalMs: TRENDING_INTERVAL_MS, run: rollUpTrending };
