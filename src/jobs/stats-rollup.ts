// Rolls up the community's daily statistics (src/core/community/daily-stats.ts) every few minutes; the
// community overview's `daily` reads them. Upserts: an overlapping run repeats the same work.
import { rollUpDailyStats } from '../core/community/daily-stats.ts';
import type { Job } from './job.ts';

const STATS_ROLLUP_INTERVAL_MS = 10 * 60 * 1000;

export const statsRollupJob: Job = { name: 'stats-rollup', intervalMs: STATS_ROLLUP_INTERVAL_MS, run: rollUpDailyStats };
