// Recomputes the precomputed recommendations (src/core/catalog/recommendations.ts) when the catalog
// changed since they were computed: a catalog import recomputes them itself at its end, so this catches
// what it could not (an import that died before its end, titles changed by other means, a catalog
// imported before recommendations were stored). The check is one scan of the title table; the work,
// when due, a few seconds. Overlapping runs write the same lists.
import { refreshStaleRecommendations } from '../core/catalog/recommendations.ts';
import type { Job } from './job.ts';

const RECOMMENDATIONS_INTERVAL_MS = 5 * 60 * 1000;

export const recommendationsJob: Job = { name: 'recommendations', intervalMs: RECOMMENDATIONS_INTERVAL_MS, run: (em) => refreshStaleRecommendations(em) };
