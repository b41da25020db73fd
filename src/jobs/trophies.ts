// Awards trophies every minute by default (TROPHY_INTERVAL_MS): follows change_log from the stored cursor,
// re-evaluates the users whose history, ratings or lists changed, and awards what is due with its
// notification (src/core/trophies/follow.ts). Runs in every instance: the cursor is compared and moved
// in the awarding transaction, so a fleet awards each trophy once.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { followTrophyChanges } from '../core/trophies/follow.ts';

export function startTrophyJob(orm: MikroORM, log: Logger, intervalMs: number): () => void {
  if (intervalMs === 0) return () => {};
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const done = await followTrophyChanges(orm.em.fork());
      if (done.awarded) log.info({ job: 'trophies', ...done }, 'trophies awarded');
    } catch (err) {
      log.error({ job: 'trophies', err }, 'trophy job failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
