// Announces newly aired episodes of followed shows (src/core/notifications/new-episodes.ts) every few
// minutes. The dedupe key per user and episode makes overlapping runs record each notification once.
import { notifyNewEpisodes } from '../core/notifications/new-episodes.ts';
import type { Job } from './job.ts';

const NEW_EPISODES_INTERVAL_MS = 15 * 60 * 1000;

export const newEpisodesJob: Job = {
  name: 'new-episodes',
  intervalMs: NEW_EPISODES_INTERVAL_MS,
  run: async (em, now) => ({ recorded: await notifyNewEpisodes(em, now) }),
};
