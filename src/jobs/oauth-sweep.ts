// Deletes expired OAuth artifacts (codes, tokens, the browsers' sessions, interactions) every few
// minutes. They are already ignored once expired; this keeps the table small. The delete is idempotent, so an overlapping
// run (in-process runners of several instances) is harmless.
import type { Job } from './job.ts';
import { sweepExpiredArtifacts } from '../core/tokens/sweep.ts';

const OAUTH_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export const oauthSweepJob: Job = {
  name: 'oauth-sweep',
  intervalMs: OAUTH_SWEEP_INTERVAL_MS,
  run: async (em) => ({ deleted: await sweepExpiredArtifacts(em) }),
};
