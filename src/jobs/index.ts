// The background jobs of one instance, started after the server listens and stopped on close. Each
// module's job is a function (orm, log) -> stop; add it to JOBS.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import { startListSync } from './list-sync.ts';
import { startNewEpisodeNotifications } from './new-episodes.ts';
import { startOAuthSweep } from './oauth-sweep.ts';
import { startPlaybackSweep } from './playback-sweep.ts';
import { startSyncSweep } from './sync-sweep.ts';
import { startTrophyJob } from './trophies.ts';

type StartJob = (orm: MikroORM, log: Logger) => () => void;

const JOBS: StartJob[] = [startOAuthSweep, startSyncSweep, startPlaybackSweep, startListSync, startNewEpisodeNotifications];

export function startJobs(orm: MikroORM, log: Logger, config: Pick<Config, 'trophyIntervalMs'>): () => void {
  const stops = JOBS.map((start) => start(orm, log));
  stops.push(startTrophyJob(orm, log, config.trophyIntervalMs));
  return () => {
    for (const stop of stops) stop();
  };
}
