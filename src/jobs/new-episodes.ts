// Announces newly aired episodes of followed shows (src/core/notifications/new-episodes.ts) every few
// minutes. Runs in every instance: the dedupe key per user and episode makes overlapping runs across a
// fleet record each notification once. `clock` lets tests move time.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../core/log.ts';
import { notifyNewEpisodes } from '../core/notifications/new-episodes.ts';

export const NEW_EPISODES_INTERVAL_MS = 15 * 60 * 1000;

export function startNewEpisodeNotifications(orm: MikroORM, log: Logger, opts: { intervalMs?: number; clock?: () => Date } = {}): () => void {
  const clock = opts.clock ?? (() => new Date());
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const recorded = await notifyNewEpisodes(orm.em.fork(), clock());
      if (recorded) log.info({ job: 'new-episodes', recorded }, 'new-episode notifications recorded');
    } catch (err) {
      log.error({ job: 'new-episodes', err }, 'new-episode notifications failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), opts.intervalMs ?? NEW_EPISODES_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
