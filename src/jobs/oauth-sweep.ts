// Deletes expired OAuth artifacts (codes, tokens, sessions, interactions) every few minutes. They are
// already ignored once expired; this keeps the table small. Runs in every instance: the delete is
// idempotent, so overlapping runs across a fleet are harmless.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { sweepExpiredArtifacts } from '../core/tokens/sweep.ts';

export const OAUTH_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export function startOAuthSweep(orm: MikroORM, log: Logger, intervalMs = OAUTH_SWEEP_INTERVAL_MS): () => void {
  const run = async () => {
    try {
      const deleted = await sweepExpiredArtifacts(orm.em.fork());
      if (deleted) log.info({ job: 'oauth-sweep', deleted }, 'expired OAuth artifacts deleted');
    } catch (err) {
      log.error({ job: 'oauth-sweep', err }, 'sweep failed');
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
